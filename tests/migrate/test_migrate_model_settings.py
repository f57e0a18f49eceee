"""mixseek-core's model settings migrate into each role's `model_settings` table: its own `model_settings`,
`google_model_settings`, `reasoning_effort`, and the sampling keys only a table takes here; a key this
mixseek refuses is listed with its reason, and the result validates."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic_ai.models.test import TestModel
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .legacy import write

FILES = {
    "configs/orchestrator.toml": '[orchestrator]\n[[orchestrator.teams]]\nconfig = "configs/team.toml"\n',
    "configs/team.toml": """\
[team]
team_id = "t"
team_name = "T"

[team.leader]
model = "google-gla:gemini-2.5-flash"
seed = 4
google_model_settings = { thinking_config = { thinking_budget = 512 } }

[[team.members]]
name = "thinker"
type = "plain"
model = "openai:gpt-4o"
description = "Thinks"
top_p = 0.8
reasoning_effort = "high"
model_settings = { openai_reasoning_summary = "concise", tempreature = 1 }
""",
    "configs/evaluator.toml": """\
default_model = "openai:gpt-4o"

[[metrics]]
name = "Coverage"
seed = 9
stop_sequences = ["END"]
""",
    "configs/judgment.toml": 'model = "anthropic:claude-sonnet-4-5"\nseed = 2\n',
}


def _toml(root: Path, rel: str) -> dict[str, Any]:
    return tomllib.loads((root / rel).read_text(encoding="utf-8"))


def test_settings_land_in_each_roles_table_and_validate(tmp_path: Path, runner: CliRunner) -> None:
    for rel, text in FILES.items():
        write(tmp_path / "core", rel, text)
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(tmp_path / "core"), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    team = _toml(dest, "configs/team.toml")["team"]
    assert team["leader"]["seed"] == 4
    assert team["leader"]["model_settings"] == {"google_thinking_config": {"thinking_budget": 512}}
    (member,) = team["members"]
    assert member["top_p"] == 0.8
    assert member["model_settings"] == {"openai_reasoning_summary": "concise", "thinking": "high"}
    metric = _toml(dest, "configs/evaluator.toml")["evaluator"]["metrics"][0]
    assert metric["model_settings"] == {"seed": 9, "stop_sequences": ["END"]}
    assert _toml(dest, "configs/judgment.toml")["judgment"]["model_settings"] == {"seed": 2}
    lines = result.output.splitlines()
    for line in (
        "  configs/team.toml: team.leader.google_model_settings: merged into model_settings",
        "  configs/team.toml: team.members[0].reasoning_effort: written as model_settings.thinking",
        "  configs/evaluator.toml: metrics[0].seed: written as model_settings.seed",
        "  configs/judgment.toml: seed: written as model_settings.seed",
    ):
        assert line in lines
    (refused,) = [line for line in lines if "tempreature" in line]
    assert refused.startswith(
        "  configs/team.toml: team.members[0].model_settings.tempreature: value 1 not accepted: "
        "not a setting of openai models (did you mean 'temperature'?)"
    )
    with override_models({"google-gla:gemini-2.5-flash": TestModel()}):
        done = runner.invoke(
            app,
            ["config", "validate", "-w", str(dest)],
            env={"OPENAI_API_KEY": "test", "ANTHROPIC_API_KEY": "test"},
        )
    assert done.exit_code == 0, done.output
