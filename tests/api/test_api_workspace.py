"""`load_workspace` gives the objects one would write in code, and they run the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek import (
    ConfigError,
    EvaluatorSettings,
    JudgmentSettings,
    LeaderAgentConfig,
    MemberAgentConfig,
    MetricConfig,
    Mixseek,
    MixseekError,
    ModelLimitConfig,
    OrchestratorSettings,
    PromptBuilderSettings,
    TeamConfig,
    load_workspace,
)
from mixseek.cli.app import app

TEMPLATE = "課題: {{ user_prompt }} (round {{ round_number }})"


def _write(root: Path) -> Path:
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    (configs / "orchestrator.toml").write_text(
        """
[orchestrator]
max_rounds = 2
min_rounds = 2
max_concurrent_teams = 1
timeout_per_team_seconds = 120
max_requests = 500
[orchestrator.model_limits."test"]
max_concurrent_requests = 3

[[orchestrator.teams]]
config = "agents/solo.toml"
[[orchestrator.teams]]
config = "agents/duo.toml"
""",
        encoding="utf-8",
    )
    (configs / "agents" / "solo.toml").write_text(
        '[team]\nteam_id = "solo"\nteam_name = "Solo"\n[team.leader]\nmodel = "test"\ntemperature = 0.3\n',
        encoding="utf-8",
    )
    (configs / "agents" / "duo.toml").write_text(
        """
[team]
team_id = "duo"
team_name = "Duo"
max_concurrent_members = 2
[team.leader]
model = "test"
system_prompt = "あなたはリーダーです。"
[[team.members]]
agent_name = "writer"
agent_type = "plain"
tool_description = "下書きを書く"
model = "test"
max_tokens = 64
""",
        encoding="utf-8",
    )
    (configs / "evaluator.toml").write_text(
        """
[evaluator]
model = "test"
[[evaluator.metrics]]
name = "relevance"
weight = 0.7
[[evaluator.metrics]]
name = "coverage"
weight = 0.3
""",
        encoding="utf-8",
    )
    (configs / "judgment.toml").write_text(
        '[judgment]\nmodel = "test"\ntimeout_seconds = 30\n', encoding="utf-8"
    )
    (configs / "prompt_builder.toml").write_text(
        f'[prompt_builder]\nteam_user_prompt = "{TEMPLATE}"\n', encoding="utf-8"
    )
    return root


def _in_code(workspace: Path | None = None) -> Mixseek:
    return Mixseek(
        [
            TeamConfig(
                team_id="solo", team_name="Solo", leader=LeaderAgentConfig(model="test", temperature=0.3)
            ),
            TeamConfig(
                team_id="duo",
                team_name="Duo",
                max_concurrent_members=2,
                leader=LeaderAgentConfig(model="test", system_prompt="あなたはリーダーです。"),
                members=[
                    MemberAgentConfig(
                        agent_name="writer",
                        agent_type="plain",
                        tool_description="下書きを書く",
                        model="test",
                        max_tokens=64,
                    )
                ],
            ),
        ],
        orchestrator=OrchestratorSettings(
            max_rounds=2,
            min_rounds=2,
            max_concurrent_teams=1,
            timeout_per_team_seconds=120,
            max_requests=500,
            model_limits={"test": ModelLimitConfig(max_concurrent_requests=3)},
        ),
        evaluator=EvaluatorSettings(
            model="test",
            metrics=[MetricConfig(name="relevance", weight=0.7), MetricConfig(name="coverage", weight=0.3)],
        ),
        judgment=JudgmentSettings(model="test", timeout_seconds=30),
        prompt_builder=PromptBuilderSettings(team_user_prompt=TEMPLATE),
        workspace=workspace,
    )


def test_a_loaded_workspace_is_the_config_written_in_code(tmp_path: Path) -> None:
    loaded = load_workspace(_write(tmp_path / "ws"))
    code = _in_code()
    assert loaded.teams == code.teams
    assert loaded.orchestrator == code.orchestrator
    assert loaded.evaluator == code.evaluator
    assert loaded.judgment == code.judgment
    assert loaded.prompt_builder == code.prompt_builder
    assert loaded.workspace == (tmp_path / "ws").resolve()
    assert code.workspace is None


def test_both_run_the_same_execution(tmp_path: Path) -> None:
    from_files = load_workspace(_write(tmp_path / "ws")).run_sync("省エネの方法を三つ")
    from_code = _in_code(tmp_path / "code-ws").run_sync("省エネの方法を三つ")
    for result in (from_files, from_code):
        assert (result.status, result.rounds_run) == ("completed", 2)
    assert from_files.leaderboard == from_code.leaderboard
    assert [(t.team_id, t.rounds_completed) for t in from_files.teams] == [("solo", 2), ("duo", 2)]
    assert from_files.usage.requests == from_code.usage.requests
    assert (tmp_path / "code-ws" / "mixseek.db").is_file()


def test_loading_reports_every_problem_with_its_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _write(tmp_path / "ws")
    (root / "configs" / "judgment.toml").write_text("[judgment]\ntimeout_seconds = -1\n", encoding="utf-8")
    (root / "configs" / "agents" / "solo.toml").write_text(
        '[team]\nteam_id = "solo"\nteam_name = "Solo"\ncolour = "red"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as raised:
        load_workspace(root)
    assert [str(p) for p in raised.value.all_problems()] == [
        f"{root / 'configs/agents/solo.toml'}: team.colour: unknown key",
        f"{root / 'configs/judgment.toml'}: judgment.timeout_seconds: Input should be greater than 0",
    ]
    monkeypatch.setenv("MIXSEEK_WORKSPACE", str(_write(tmp_path / "other")))
    assert [t.team_id for t in load_workspace().teams] == ["solo", "duo"]
    with pytest.raises(ConfigError, match="workspace directory does not exist"):
        load_workspace(tmp_path / "absent")


def test_teams_in_code_are_checked_like_files() -> None:
    team = TeamConfig(team_id="same", team_name="One", leader=LeaderAgentConfig(model="test"))
    with pytest.raises(ConfigError, match=r"^teams\[1\]: team_id: 'same' is also the team_id of teams\[0\]$"):
        Mixseek([team, team.model_copy(update={"team_name": "Two"})])
    with pytest.raises(ConfigError, match=r"^teams: give a list of at least one team$"):
        Mixseek([])
    with pytest.raises(MixseekError, match=r"^team_user_prompt \(prompt_builder\): .*'nope' is undefined"):
        Mixseek([team], prompt_builder=PromptBuilderSettings(team_user_prompt="{{ nope }}"))
    from_dict = Mixseek([{"team_id": "d", "team_name": "D", "leader": {"model": "test"}}])
    assert from_dict.teams == [TeamConfig(team_id="d", team_name="D", leader=LeaderAgentConfig(model="test"))]


def test_an_orchestrator_file_still_needs_a_team(tmp_path: Path, runner: CliRunner) -> None:
    """Settings in code take their teams from `Mixseek`; a file must still name one."""
    root = _write(tmp_path / "ws")
    orchestrator = root / "configs" / "orchestrator.toml"
    orchestrator.write_text("[orchestrator]\nmax_rounds = 2\n", encoding="utf-8")
    reason = 'at least one [[orchestrator.teams]] entry with config = "path" is required'
    with pytest.raises(ConfigError) as raised:
        load_workspace(root)
    assert str(raised.value) == f"{orchestrator}: orchestrator.teams: {reason}"
    result = runner.invoke(app, ["exec", "課題", "-w", str(root), "--dry-run"])
    assert (result.exit_code, result.stderr) == (2, f"error: {orchestrator}: orchestrator.teams: {reason}\n")
    assert OrchestratorSettings(max_rounds=2).teams == []
