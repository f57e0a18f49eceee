"""mixseek-core's model prefixes: `openai-responses:` works as it is, `qwen:` (an OpenAI-compatible endpoint
read from MODEL_API_URL/MODEL_API_KEY) becomes `vllm:` with a note, `grok(-responses):` becomes `xai:`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app

from .legacy import write

TEAM = """\
[team]
team_id = "core-team"
team_name = "Core Team"

[team.leader]
model = "qwen:qwen3-32b"

[[team.members]]
agent_name = "writer"
agent_type = "plain"
model = "openai-responses:gpt-5"
tool_description = "Writes"
"""


@pytest.fixture
def migrated(tmp_path: Path, runner: CliRunner) -> tuple[Path, str]:
    source = tmp_path / "core"
    write(
        source,
        "configs/orchestrator.toml",
        '[orchestrator]\n[[orchestrator.teams]]\nconfig = "configs/team.toml"\n',
    )
    write(source, "configs/team.toml", TEAM)
    write(source, "configs/evaluator.toml", '[llm_default]\nmodel = "openai-responses:gpt-5"\n')
    write(source, "configs/judgment.toml", 'model = "qwen:qwen3-32b"\n')
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    return dest, result.output


def test_qwen_becomes_vllm_with_a_note_and_openai_responses_is_kept(migrated: tuple[Path, str]) -> None:
    dest, output = migrated
    team = tomllib.loads((dest / "configs/team.toml").read_text(encoding="utf-8"))["team"]
    assert team["leader"]["model"] == "vllm:qwen3-32b"
    assert team["members"][0]["model"] == "openai-responses:gpt-5"
    judgment = tomllib.loads((dest / "configs/judgment.toml").read_text(encoding="utf-8"))["judgment"]
    assert judgment["model"] == "vllm:qwen3-32b"
    notes = [line for line in output.splitlines() if "'qwen:qwen3-32b' written as 'vllm:qwen3-32b'" in line]
    assert len(notes) == 2
    assert all("VLLM_BASE_URL" in line and "MODEL_API_URL" in line for line in notes)
    assert "openai-responses:gpt-5' written" not in output


def test_the_migrated_workspace_validates(
    migrated: tuple[Path, str], runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest, _ = migrated
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    result = runner.invoke(app, ["config", "validate", "-w", str(dest)])
    assert result.exit_code == 0, result.output
