"""Which configuration a team round needs: a hash that workers and the client compare.

Unlike the execution's config snapshot it leaves out where the workspace lives and where spans
go, so two machines with the same configs under different paths agree.
"""

from __future__ import annotations

import hashlib
import json

from mixseek.config.bundle import ExecutionConfig
from mixseek.version import __version__


def work_hash(config: ExecutionConfig) -> str:
    """sha256 of everything that shapes a team round or a judgment."""
    data = {
        "orchestrator": config.orchestrator.value.model_dump(mode="json", exclude={"telemetry", "engine"}),
        "teams": {e.config.team_id: e.config.model_dump(mode="json") for e in config.teams},
        "evaluator": config.evaluator.value.model_dump(mode="json"),
        "judgment": config.judgment.value.model_dump(mode="json"),
        "prompt_builder": config.prompt_builder.value.model_dump(mode="json"),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def build_id(config_hash: str) -> str:
    """What a mixseek worker tells Temporal its code is: mixseek's version and the configuration.

    Without one, the SDK makes its own when a worker starts by hashing the bytecode of every
    loaded module (pydantic-ai's and the providers' included): 0.1 s of CPU in each `mixseek exec`
    and `mixseek worker`, for an id that says less than this one."""
    return f"mixseek-{__version__}-{config_hash[:16]}"
