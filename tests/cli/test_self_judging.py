"""`self_judging`: a judge whose model is also a team's is warned of, refused or allowed at config load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REASON = (
    "judge model local:smollm2 is also the model of teams analysts, writers: "
    "its verdicts may prefer its own answers"
)


def mixseek(*args: str, mode: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    if mode is not None:
        env["MIXSEEK_ORCHESTRATOR__SELF_JUDGING"] = mode
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample workspace: one model for every role, its evaluator's too."""
    root = tmp_path_factory.mktemp("self_judging") / "ws"
    assert mixseek("init", "-w", str(root)).returncode == 0
    return root


def test_warn_prints_one_line_and_goes_on(ws: Path) -> None:
    result = mixseek("config", "validate", "-w", str(ws), mode="warn")
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"warning: {ws / 'configs' / 'evaluator.toml'}: evaluator.model: {REASON}\n"


def test_exec_refuses_with_one_line_and_exit_2(ws: Path) -> None:
    result = mixseek("exec", "a task", "-w", str(ws), mode="refuse")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f'error: {ws / "configs" / "evaluator.toml"}: evaluator.model: {REASON} (self_judging = "refuse")'
    ]


def test_allow_says_nothing(ws: Path) -> None:
    # the sample's own setting
    assert 'self_judging = "allow"' in (ws / "configs" / "orchestrator.toml").read_text(encoding="utf-8")
    for mode in ("allow", None):
        result = mixseek("config", "validate", "-w", str(ws), mode=mode)
        assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
