"""Shared fixtures: an isolated environment and a freshly initialised workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai import models
from typer.testing import CliRunner

from mixseek.cli.app import app

# No test may reach a real provider: fixtures name models such as `openai:gpt-4o-mini`, and a
# forgotten override must fail loudly instead of sending a request. Tests of mixseek's own HTTP
# handling against a server on 127.0.0.1 re-enable requests for themselves.
models.ALLOW_MODEL_REQUESTS = False


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's workspace, templates or keys."""
    for var in (
        "MIXSEEK_WORKSPACE",
        "MIXSEEK_TEAM_USER_PROMPT",
        "MIXSEEK_EVALUATOR_USER_PROMPT",
        "MIXSEEK_JUDGMENT_USER_PROMPT",
        "TZ",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def workspace(tmp_path: Path, runner: CliRunner) -> Path:
    root = tmp_path / "ws"
    result = runner.invoke(app, ["init", "-w", str(root), "--model", "openai:gpt-4o-mini"])
    assert result.exit_code == 0, result.output
    return root
