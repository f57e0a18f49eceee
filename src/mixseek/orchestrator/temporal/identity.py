"""Which configuration a team round needs: a hash workers and the client compare (no paths, no telemetry)."""

from __future__ import annotations

import hashlib
import json

from mixseek.config.bundle import ExecutionConfig
from mixseek.config.orchestrator import NOT_COMPARED
from mixseek.version import __version__


def work_hash(config: ExecutionConfig) -> str:
    """sha256 of everything that shapes a team round or a judgment."""
    data = {
        "orchestrator": config.orchestrator.value.model_dump(mode="json", exclude=NOT_COMPARED),
        "teams": {e.config.team_id: e.config.model_dump(mode="json") for e in config.teams},
        "evaluator": config.evaluator.value.model_dump(mode="json"),
        "judgment": config.judgment.value.model_dump(mode="json"),
        "prompt_builder": config.prompt_builder.value.model_dump(mode="json"),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def build_id(config_hash: str) -> str:
    """What a mixseek worker tells Temporal its code is (the SDK's own hashes every module: 0.1 s)."""
    return f"mixseek-{__version__}-{config_hash[:16]}"
