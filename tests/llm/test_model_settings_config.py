"""A `model_settings` table is checked when its file loads: against the settings type of each model the role
calls, with one line naming file, key and reason, and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mixseek.llm import settings as llm_settings

TEAM = """
[team]
team_id = "analysts"
team_name = "Analysts"

[team.leader]
model = "openai:gpt-4o-mini"
{leader}

[[team.members]]
agent_name = "analyst"
agent_type = "plain"
tool_description = "整理します"
model = "anthropic:claude-sonnet-4-5"
{member}
"""


def validate(workspace: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "test-openai", "ANTHROPIC_API_KEY": "test-anthropic"}
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "config", "validate", "-w", str(workspace)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def team(workspace: Path, leader: str = "", member: str = "") -> Path:
    path = workspace / "configs/agents/team-analysts.toml"
    path.write_text(TEAM.format(leader=leader, member=member), encoding="utf-8")
    return path.resolve()


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused config."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[1:] == ["1 problem(s) found"] and "Traceback" not in done.stderr
    return lines[0]


def test_provider_keys_are_accepted_for_their_provider(workspace: Path) -> None:
    team(
        workspace,
        'top_p = 0.9\nmodel_settings = { seed = 1, openai_reasoning_effort = "high", stop_sequences = [] }',
        'model_settings = { anthropic_thinking = { type = "enabled", budget_tokens = 2048 } }',
    )
    done = validate(workspace)
    assert done.returncode == 0, done.stderr


def test_an_unknown_key_names_file_key_and_the_known_keys(workspace: Path) -> None:
    file = team(workspace, "model_settings = { tempreature = 0.3 }")
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {file}: team.leader.model_settings.tempreature: not a setting of openai models "
        "(did you mean 'temperature'?); known: "
    )
    assert "openai_reasoning_effort" in line


def test_a_key_of_another_provider_is_refused(workspace: Path) -> None:
    file = team(workspace, member='model_settings = { openai_reasoning_effort = "low" }')
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {file}: team.members[0].model_settings.openai_reasoning_effort: "
        "not a setting of anthropic models"
    )


def test_a_value_of_the_wrong_type_is_refused(workspace: Path) -> None:
    file = team(workspace, 'model_settings = { openai_reasoning_effort = "extreme" }')
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {file}: team.leader.model_settings.openai_reasoning_effort: Input should be"
    )
    file = team(workspace, member='model_settings = { temperature = "hot" }')
    assert refused(validate(workspace)) == (
        f"error: {file}: team.members[0].model_settings.temperature: "
        "Input should be a valid number, unable to parse string as a number"
    )


def test_a_key_given_both_ways_is_refused(workspace: Path) -> None:
    file = team(workspace, "seed = 3\nmodel_settings = { seed = 4 }")
    assert refused(validate(workspace)) == (
        f"error: {file}: team.leader.model_settings.seed: given twice: as seed and in model_settings"
    )


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (
            "max_retries",
            "mixseek retries each request itself (max_retries, outside the table); the SDK's stay 0",
        ),
        ("timeout", "mixseek sets it from timeout_seconds: use that key"),
    ],
)
def test_what_mixseek_sets_itself_is_refused(workspace: Path, key: str, reason: str) -> None:
    file = team(workspace, member=f"model_settings = {{ {key} = 2 }}")
    assert refused(validate(workspace)) == f"error: {file}: team.members[0].model_settings.{key}: {reason}"


def test_a_member_file_names_its_own_key(workspace: Path) -> None:
    member_file = workspace / "configs/agents/analyst.toml"
    member_file.write_text(
        '[member]\nagent_name = "analyst"\nagent_type = "plain"\ntool_description = "x"\n'
        'model = "openai:gpt-4o-mini"\nmodel_settings = { sed = 1 }\n',
        encoding="utf-8",
    )
    (workspace / "configs/agents/team-analysts.toml").write_text(
        '[team]\nteam_id = "analysts"\nteam_name = "A"\n[[team.members]]\nconfig = "analyst.toml"\n',
        encoding="utf-8",
    )
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {member_file.resolve()}: member.model_settings.sed: not a setting of openai"
    )


def test_a_panel_metric_takes_only_keys_every_judge_takes(workspace: Path) -> None:
    evaluator = workspace / "configs/evaluator.toml"
    evaluator.write_text(
        '[evaluator]\nmodel = "openai:gpt-4o-mini"\n[evaluator.model_settings]\nseed = 5\n'
        '[[evaluator.metrics]]\nname = "coverage"\n'
        'models = ["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"]\n'
        'model_settings = { openai_reasoning_effort = "low" }\n',
        encoding="utf-8",
    )
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {evaluator.resolve()}: evaluator.metrics[0].model_settings.openai_reasoning_effort: "
        "not a setting of anthropic models"
    )
    evaluator.write_text(
        '[evaluator]\nmodel = "openai:gpt-4o-mini"\n[[evaluator.metrics]]\nname = "length"\nmin_chars = 3\n'
        "model_settings = { seed = 1 }\n",
        encoding="utf-8",
    )
    assert refused(validate(workspace)) == (
        f"error: {evaluator.resolve()}: evaluator.metrics[0]: model_settings: metric 'length' calls no model"
    )


def test_judgment_and_pairwise_tables_are_checked(workspace: Path) -> None:
    judgment = workspace / "configs/judgment.toml"
    judgment.write_text(
        '[judgment]\nmodel = "openai:gpt-4o-mini"\ntemperature = 0.2\n'
        "model_settings = { temperature = 0.1 }\n",
        encoding="utf-8",
    )
    assert refused(validate(workspace)) == (
        f"error: {judgment.resolve()}: judgment.model_settings.temperature: "
        "given twice: as temperature and in model_settings"
    )
    judgment.write_text('[judgment]\nmodel = "openai:gpt-4o-mini"\n', encoding="utf-8")
    pairwise = workspace / "configs/pairwise.toml"
    pairwise.write_text(
        '[pairwise]\nenabled = true\nmodel = "openai:gpt-4o-mini"\nseed = 3\n'
        'model_settings = { seed = 9, anthropic_thinking = { type = "disabled" } }\n',
        encoding="utf-8",
    )
    line = refused(validate(workspace))
    assert line.startswith(
        f"error: {pairwise.resolve()}: pairwise.model_settings.anthropic_thinking: "
        "not a setting of openai models"
    )


def test_a_provider_without_its_sdk_takes_its_prefixed_keys_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(llm_settings._SETTINGS_TYPES, "nosdk", "mixseek_no_such_sdk.NoSdkModelSettings")
    llm_settings.settings_type.cache_clear()
    try:
        assert llm_settings.settings_problem(["nosdk:m"], {"mixseek_no_such_sdk_mode": 1, "seed": 2}) is None
        key, reason = llm_settings.settings_problem(["nosdk:m"], {"nosdk_mode": 1}) or ("", "")
        assert key == "nosdk_mode"
        assert "its SDK is not installed: mixseek_no_such_sdk_* keys pass unchecked" in reason
    finally:
        llm_settings.settings_type.cache_clear()
