"""`from mixseek import …`: every exported name resolves, and importing the package stays cheap."""

from __future__ import annotations

import subprocess
import sys

import mixseek


def test_every_exported_name_resolves() -> None:
    assert sorted(mixseek.__all__) == sorted([*mixseek._EXPORTS, "__version__"])
    for name in mixseek.__all__:
        assert getattr(mixseek, name) is not None, name
    assert mixseek.Mixseek.__module__ == "mixseek.api.mixseek"
    assert (
        mixseek.TeamConfig is __import__("mixseek.agents.leader.config", fromlist=["TeamConfig"]).TeamConfig
    )


def test_every_kind_of_team_can_be_written_in_code() -> None:
    """A workflow team's models come with `TeamConfig` (a broadcast team needs only its
    `member_dispatch`)."""
    workflow = {"WorkflowConfig", "WorkflowStep", "AgentExecutorConfig", "FunctionExecutorConfig"}
    assert workflow <= set(mixseek.__all__)
    assert {getattr(mixseek, name).__module__ for name in workflow} == {"mixseek.config.workflow_models"}


def test_importing_the_package_loads_no_model_library() -> None:
    """The `mixseek` command installs its Ctrl-C handling from `mixseek.cli.entry` before anything
    heavy loads; the package's `__init__` runs first, so it must stay light."""
    code = (
        "import sys, mixseek, mixseek.cli.entry; "
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'duckdb', 'mixseek.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = [
        "mixseek.cli",
        "mixseek.cli.entry",
        "mixseek.cli.interrupts",
        "mixseek.cli.loading_guard",
        "mixseek.exit_codes",
        "mixseek.lazy_exports",
        "mixseek.version",
    ]
    assert out.strip() == repr(loaded)
