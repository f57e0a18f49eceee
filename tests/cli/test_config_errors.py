"""Bad config input: one line naming file, key and reason; exit code 2; no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app


def _validate(runner: CliRunner, ws: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["config", "validate", "-w", str(ws)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stderr


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_sample_workspace_validates(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(
        app, ["config", "validate", "-w", str(workspace)], env={"OPENAI_API_KEY": "sk-test"}
    )
    assert result.exit_code == 0, result.stderr
    assert "2 team(s): analysts, writers" in result.stdout
    assert result.stderr == ""


def test_missing_credentials_is_a_warning_not_an_error(
    runner: CliRunner, workspace: Path, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["config", "validate", "-w", str(workspace)])
    assert result.exit_code == 0
    assert "warning: OPENAI_API_KEY is not set (needed by leader of team 'analysts')" in result.stderr


def test_no_workspace_given(runner: CliRunner) -> None:
    result = runner.invoke(app, ["config", "validate"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --workspace: no workspace given: pass --workspace/-w DIR or set MIXSEEK_WORKSPACE"
    )


def test_workspace_does_not_exist(runner: CliRunner, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    result = runner.invoke(app, ["config", "validate"], env={"MIXSEEK_WORKSPACE": str(missing)})
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: MIXSEEK_WORKSPACE: workspace directory does not exist: {missing} (run 'mixseek init')"
    )


CASES: list[tuple[str, str, str, str, str]] = [
    # (id, file, old text, new text, expected line after "error: <workspace>/")
    (
        "toml-syntax",
        "configs/orchestrator.toml",
        "max_rounds = 2",
        "max_rounds = = 2",
        "configs/orchestrator.toml: TOML syntax error: Invalid value (at line 5, column 14)",
    ),
    (
        "unknown-key",
        "configs/orchestrator.toml",
        "max_rounds = 2",
        "max_round = 2",
        "configs/orchestrator.toml: orchestrator.max_round: unknown key",
    ),
    (
        "wrong-type",
        "configs/orchestrator.toml",
        "max_rounds = 2",
        'max_rounds = "two"',
        "configs/orchestrator.toml: orchestrator.max_rounds: "
        "Input should be a valid integer, unable to parse string as an integer",
    ),
    (
        "min-over-max",
        "configs/orchestrator.toml",
        "min_rounds = 1",
        "min_rounds = 5",
        "configs/orchestrator.toml: orchestrator: min_rounds (5) must be <= max_rounds (2)",
    ),
    (
        "unknown-top-level-table",
        "configs/orchestrator.toml",
        "[orchestrator]",
        "[orchestrater]\n[orchestrator]",
        "configs/orchestrator.toml: orchestrater: unknown top-level key (expected only [orchestrator])",
    ),
    (
        "team-file-missing",
        "configs/orchestrator.toml",
        'config = "agents/team-writers.toml"',
        'config = "agents/team-missing.toml"',
        "configs/orchestrator.toml: orchestrator.teams[1].config: team file not found: "
        "{ws}/configs/agents/team-missing.toml",
    ),
    (
        "team-id-missing",
        "configs/agents/team-analysts.toml",
        'team_id = "analysts"\n',
        "",
        "configs/agents/team-analysts.toml: team.team_id: required key is missing",
    ),
    (
        "leader-temperature-range",
        "configs/agents/team-analysts.toml",
        "[team.leader]\n",
        "[team.leader]\ntemperature = 3.5\n",
        "configs/agents/team-analysts.toml: team.leader.temperature: Input should be less than or equal to 2",
    ),
    (
        "leader-empty-system-prompt",
        "configs/agents/team-writers.toml",
        "[team.leader]\n",
        '[team.leader]\nsystem_prompt = "  "\n',
        "configs/agents/team-writers.toml: team.leader.system_prompt: system_prompt cannot be empty string. "
        "Use None for default prompt or provide valid text.",
    ),
    (
        "member-agent-type",
        "configs/agents/team-analysts.toml",
        'agent_name = "critic"\nagent_type = "plain"',
        'agent_name = "critic"\nagent_type = "robot"',
        "configs/agents/team-analysts.toml: team.members[1].agent_type: agent_type must be one of "
        "plain, web-search, web-fetch, code-exec, custom (got 'robot')",
    ),
    (
        "duplicate-agent-name",
        "configs/agents/team-analysts.toml",
        'agent_name = "critic"',
        'agent_name = "analyst"',
        "configs/agents/team-analysts.toml: team.members: Duplicate agent_name detected: ['analyst']",
    ),
    (
        "too-many-members",
        "configs/agents/team-analysts.toml",
        "max_concurrent_members = 2",
        "max_concurrent_members = 1",
        "configs/agents/team-analysts.toml: team.members: Too many members: 2 > 1. "
        "Adjust max_concurrent_members or reduce member count.",
    ),
    (
        "member-reference-missing",
        "configs/agents/team-writers.toml",
        'config = "members/writer.toml"',
        'config = "members/ghost.toml"',
        "configs/agents/team-writers.toml: team.members[0].config: member file not found: "
        "{ws}/configs/agents/members/ghost.toml",
    ),
    (
        "member-reference-bad-value",
        "configs/agents/members/writer.toml",
        'agent_type = "plain"',
        "agent_type = 7",
        "configs/agents/members/writer.toml: member.agent_type: Input should be a valid string",
    ),
    (
        "member-empty-tool-description",
        "configs/agents/team-analysts.toml",
        'tool_description = "下書きの弱点や抜け漏れを指摘します。"',
        'tool_description = " "',
        "configs/agents/team-analysts.toml: team.members[1].tool_description: "
        "tool_description cannot be empty",
    ),
    (
        "evaluator-partial-weights",
        "configs/evaluator.toml",
        "weight = 0.4\n",
        "",
        "configs/evaluator.toml: evaluator.metrics: give a weight to every metric or to none "
        "(none means equal weights)",
    ),
    (
        "evaluator-unknown-metric",
        "configs/evaluator.toml",
        'name = "coverage"',
        'name = "beauty"',
        "configs/evaluator.toml: evaluator.metrics[2]: unknown metric 'beauty': use one of "
        "clarity_coherence, coverage, relevance, llm_plain, length, patterns, json_schema, "
        'reference_similarity or set class_path = "module:Class" for a custom metric',
    ),
    (
        "judgment-wrong-type",
        "configs/judgment.toml",
        "judge_on_final_round = false",
        'judge_on_final_round = "sometimes"',
        "configs/judgment.toml: judgment.judge_on_final_round: Input should be a valid boolean, "
        "unable to interpret input",
    ),
    (
        "prompt-builder-empty-template",
        "configs/prompt_builder.toml",
        'team_user_prompt = """',
        'team_user_prompt = ""\nunused = """',
        "configs/prompt_builder.toml: prompt_builder.team_user_prompt: team_user_prompt cannot be empty",
    ),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_config_reports_one_clear_line(
    runner: CliRunner, workspace: Path, file: str, old: str, new: str, expected: str
) -> None:
    _edit(workspace / file, old, new)
    code, err = _validate(runner, workspace)
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0] == f"error: {workspace}/" + expected.format(ws=workspace)


def test_validate_reports_every_problem(runner: CliRunner, workspace: Path) -> None:
    _edit(workspace / "configs/orchestrator.toml", "max_concurrent_teams = 2", "max_concurrent_teams = 0")
    _edit(workspace / "configs/agents/team-analysts.toml", "[team.leader]\n", "[team.leader]\ntop_p = 2.0\n")
    _edit(workspace / "configs/judgment.toml", "timeout_seconds = 60", "timeout_seconds = -1\nmood = 1")
    code, err = _validate(runner, workspace)
    assert code == 2
    assert err.strip().splitlines() == [
        f"error: {workspace}/configs/orchestrator.toml: orchestrator.max_concurrent_teams: "
        "Input should be greater than or equal to 1",
        f"error: {workspace}/configs/agents/team-analysts.toml: team.leader.top_p: "
        "Input should be less than or equal to 1",
        f"error: {workspace}/configs/judgment.toml: judgment.timeout_seconds: Input should be greater than 0",
        f"error: {workspace}/configs/judgment.toml: judgment.mood: unknown key",
        "4 problem(s) found",
    ]


def test_duplicate_team_id_across_files(runner: CliRunner, workspace: Path) -> None:
    _edit(workspace / "configs/agents/team-writers.toml", 'team_id = "writers"', 'team_id = "analysts"')
    code, err = _validate(runner, workspace)
    assert code == 2
    assert err.splitlines()[0] == (
        f"error: {workspace}/configs/agents/team-writers.toml: team.team_id: "
        "'analysts' is also the team_id of "
        f"{workspace}/configs/agents/team-analysts.toml"
    )


def test_bad_env_override_names_the_variable(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(
        app, ["config", "validate", "-w", str(workspace)], env={"MIXSEEK_ORCHESTRATOR__MAX_ROUNDS": "many"}
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS: "
        "Input should be a valid integer, unable to parse string as an integer"
    )


def test_env_table_that_is_not_json_names_the_variable(runner: CliRunner, workspace: Path) -> None:
    # a table (model_limits) comes from the environment as JSON; bad JSON was a traceback
    for args in (["config", "validate"], ["exec", "task"]):
        result = runner.invoke(
            app, [*args, "-w", str(workspace)], env={"MIXSEEK_ORCHESTRATOR__MODEL_LIMITS": "{gpt: 3}"}
        )
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.splitlines()[0] == (
            "error: env MIXSEEK_ORCHESTRATOR__MODEL_LIMITS: not valid JSON "
            "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
        )


def test_init_refuses_to_overwrite(runner: CliRunner, workspace: Path) -> None:
    before = (workspace / "configs/orchestrator.toml").read_text(encoding="utf-8")
    (workspace / "configs/orchestrator.toml").write_text(before + "\n# mine\n", encoding="utf-8")
    result = runner.invoke(app, ["init", "-w", str(workspace)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {workspace}/configs/orchestrator.toml: already exists; pass --force to overwrite "
        "(nothing was written)"
    )
    assert (workspace / "configs/orchestrator.toml").read_text(encoding="utf-8").endswith("# mine\n")


def test_config_init_unknown_kind(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(app, ["config", "init", "-w", str(workspace), "--kind", "robots"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --kind: unknown config kind 'robots' "
        "(choose from prompt_builder, orchestrator, evaluator, judgment, team, member)"
    )


def test_config_show_bad_output_format(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(app, ["config", "show", "-w", str(workspace), "--output-format", "xml"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --output-format: must be 'text' or 'json' (got 'xml')"


def test_unknown_cli_option_exits_2(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(app, ["config", "validate", "-w", str(workspace), "--bogus"])
    assert result.exit_code == 2
    assert "No such option: --bogus" in result.output
