"""Constructor arguments beat the environment in Python; the CLI keeps environment > file > default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek import (
    EvaluatorSettings,
    JudgmentSettings,
    LeaderAgentConfig,
    Mixseek,
    OrchestratorSettings,
    PromptBuilderSettings,
    TeamConfig,
    load_workspace,
)
from mixseek.cli.app import app


def test_constructor_arguments_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS", "9")
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MIN_ROUNDS", "2")
    monkeypatch.setenv("MIXSEEK_EVALUATOR__MODEL", "openai:gpt-4o")
    monkeypatch.setenv("MIXSEEK_JUDGMENT__JUDGE_ON_FINAL_ROUND", "true")
    monkeypatch.setenv("MIXSEEK_TEAM_USER_PROMPT", "from env {{ user_prompt }}")

    settings = OrchestratorSettings(max_rounds=3)
    assert settings.max_rounds == 3  # given: the constructor's
    assert settings.min_rounds == 2  # not given: the environment's
    assert EvaluatorSettings(model="test").model == "test"
    assert JudgmentSettings(judge_on_final_round=False).judge_on_final_round is False
    assert PromptBuilderSettings(team_user_prompt="mine {{ user_prompt }}").team_user_prompt.startswith(
        "mine"
    )
    assert OrchestratorSettings().max_rounds == 9  # nothing given: the environment fills in


def test_an_execution_in_code_runs_the_rounds_its_constructor_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS", "9")
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MIN_ROUNDS", "9")
    team = TeamConfig(team_id="a", team_name="A", leader=LeaderAgentConfig(model="test"))
    mx = Mixseek(
        [team],
        orchestrator=OrchestratorSettings(max_rounds=2, min_rounds=2),
        evaluator=EvaluatorSettings(model="test"),
        judgment=JudgmentSettings(model="test"),
    )
    result = mx.run_sync("課題")
    assert (result.status, result.rounds_run, result.leaderboard[0].total_rounds) == ("completed", 2, 2)


def _workspace(runner: CliRunner, root: Path) -> Path:
    result = runner.invoke(app, ["init", "-w", str(root), "--model", "test"])
    assert result.exit_code == 0, result.output
    orchestrator = root / "configs" / "orchestrator.toml"
    text = orchestrator.read_text(encoding="utf-8").replace("max_rounds = 2", "max_rounds = 4")
    limits = '[orchestrator.model_limits."test"]\nmax_concurrent_requests = 3\n\n[[orchestrator.teams]]'
    text = text.replace("[[orchestrator.teams]]", limits, 1)
    orchestrator.write_text(text, encoding="utf-8")
    return root


def test_files_give_way_to_the_environment(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(runner, tmp_path / "ws")
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS", "3")
    monkeypatch.setenv(
        "MIXSEEK_ORCHESTRATOR__MODEL_LIMITS", '{"openai:gpt-4o": {"max_concurrent_requests": 2}}'
    )

    loaded = load_workspace(root)
    assert loaded.orchestrator.max_rounds == 3  # env > file (4) > default (3 too, but from env)
    assert loaded.orchestrator.max_concurrent_teams == 2  # file > default (4)
    assert set(loaded.orchestrator.model_limits) == {"test", "openai:gpt-4o"}  # env tables add to the file's
    sources = loaded.config.orchestrator.sources
    assert sources["max_rounds"] == "env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS"
    assert sources["max_concurrent_teams"] == str(root / "configs" / "orchestrator.toml")

    dry = runner.invoke(app, ["exec", "課題", "-w", str(root), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "up to 3 round(s)" in dry.stdout

    shown = runner.invoke(app, ["config", "show", "-w", str(root), "--output-format", "json"])
    assert shown.exit_code == 0, shown.output
    rows = {row["key"]: row for row in json.loads(shown.stdout)["sections"]["orchestrator"]}
    assert rows["max_rounds"] == {
        "key": "max_rounds",
        "value": "3",
        "source": "env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS",
    }
    assert rows["max_concurrent_teams"]["source"] == str(root / "configs" / "orchestrator.toml")
    assert rows["min_rounds"]["source"] == str(root / "configs" / "orchestrator.toml")

    monkeypatch.delenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS")
    assert load_workspace(root).orchestrator.max_rounds == 4
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS", "0")
    bad = runner.invoke(app, ["exec", "課題", "-w", str(root), "--dry-run"])
    assert bad.exit_code == 2
    assert bad.stderr.strip() == (
        "error: env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS: Input should be greater than or equal to 1"
    )
