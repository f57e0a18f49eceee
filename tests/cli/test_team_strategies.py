"""`mixseek team` runs every kind of team once: a workflow team (function and agent executors) and a
broadcast team; a failed workflow step is one line and exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner, Result

from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text

WORKFLOW_TEAM = """
[team]
team_id = "wf"
team_name = "Workflow"

[workflow]
input = "all"

[[workflow.steps]]
id = "research"
[[workflow.steps.executors]]
name = "notes"
function = "steps.py:{notes}"

[[workflow.steps]]
id = "write"
[[workflow.steps.executors]]
name = "writer"
model = "script:writer"
"""

STEPS = """
def notes(document):
    return "notes on " + document["user_prompt"]


def broken(document):
    raise ValueError("no sources")
"""

BROADCAST_TEAM = """
[team]
team_id = "bc"
team_name = "Broadcast"
member_dispatch = "broadcast"

[team.leader]
model = "script:leader"

[[team.members]]
agent_name = "first"
agent_type = "plain"
tool_description = "a"
model = "script:first"

[[team.members]]
agent_name = "second"
agent_type = "plain"
tool_description = "b"
model = "script:second"
"""


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    document = json.loads(first_user_text(messages).split("\n\n", 1)[1])
    (research,) = document["previous_steps"]
    return ModelResponse(
        parts=[TextPart(f"draft from {research['results'][0]['content']}")],
        usage=RequestUsage(input_tokens=10, output_tokens=4),
    )


def answer(text: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=2, output_tokens=1))

    return FunctionModel(fn)


def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    assert not info.function_tools  # a broadcast leader calls no member
    prompt = first_user_text(messages)
    heard = [name for name in ("first idea", "second idea") if name in prompt]
    return ModelResponse(
        parts=[TextPart("merged: " + " + ".join(heard))], usage=RequestUsage(input_tokens=5, output_tokens=3)
    )


MODELS = {
    "script:writer": FunctionModel(writer),
    "script:leader": FunctionModel(leader),
    "script:first": answer("first idea"),
    "script:second": answer("second idea"),
}


def write_workflow_team(tmp_path: Path, notes: str = "notes") -> Path:
    (tmp_path / "steps.py").write_text(STEPS, encoding="utf-8")
    team = tmp_path / "wf.toml"
    team.write_text(WORKFLOW_TEAM.format(notes=notes), encoding="utf-8")
    return team


def cells(line: str) -> list[str]:
    """The cells of a table line as rich draws it."""
    return [cell.strip() for cell in re.split("[│┃]", line)[1:-1]]


def run_team(runner: CliRunner, team: Path, *args: str) -> Result:
    with override_models(MODELS):
        result = runner.invoke(app, ["team", "課題", "-c", str(team), *args], env={"COLUMNS": "160"})
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_workflow_team_runs_once_with_its_kind_and_steps_in_json(tmp_path: Path, runner: CliRunner) -> None:
    result = run_team(runner, write_workflow_team(tmp_path), "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["team_id"], data["kind"], data["content"]) == ("wf", "workflow", "draft from notes on 課題")
    assert [(m["step_id"], m["agent_name"], m["agent_type"], m["status"]) for m in data["members"]] == [
        ("research", "notes", "function", "SUCCESS"),
        ("write", "writer", "plain", "SUCCESS"),
    ]
    writer_usage = {"requests": 1, "tool_calls": 0, "input_tokens": 10, "output_tokens": 4}
    assert data["usage"] == {"members": writer_usage, "total": writer_usage}  # no leader to pay


def test_a_workflow_team_text_shows_a_step_column(tmp_path: Path, runner: CliRunner) -> None:
    result = run_team(runner, write_workflow_team(tmp_path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any(line.startswith("─") and "team wf (Workflow): workflow" in line for line in lines)
    assert "draft from notes on 課題" in lines
    header = next(cells(line) for line in lines if "member" in line and "status" in line)
    assert header[:4] == ["step", "member", "type", "status"]
    rows = [cells(line)[:4] for line in lines if "SUCCESS" in line]
    assert rows == [["research", "notes", "function", "SUCCESS"], ["write", "writer", "plain", "SUCCESS"]]
    assert not any(line.startswith("│ leader") for line in lines)


def test_a_broadcast_team_runs_once_with_its_kind(tmp_path: Path, runner: CliRunner) -> None:
    team = tmp_path / "bc.toml"
    team.write_text(BROADCAST_TEAM, encoding="utf-8")
    result = run_team(runner, team, "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["kind"], data["content"]) == ("broadcast", "merged: first idea + second idea")
    assert sorted((m["agent_name"], m["status"], m["step_id"]) for m in data["members"]) == [
        ("first", "SUCCESS", None),
        ("second", "SUCCESS", None),
    ]
    assert data["usage"]["leader"] == {"requests": 1, "tool_calls": 0, "input_tokens": 5, "output_tokens": 3}

    text = run_team(runner, team)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert any("team bc (Broadcast): broadcast" in line for line in lines)
    header = next(cells(line) for line in lines if "member" in line and "status" in line)
    assert header[:2] == ["member", "type"]  # no step column for a leader team


def test_a_failed_workflow_step_is_one_line_naming_step_and_executor(
    tmp_path: Path, runner: CliRunner
) -> None:
    team = write_workflow_team(tmp_path, notes="broken")
    for args in ((), ("-f", "json")):
        result = run_team(runner, team, *args)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            "error: workflow step 'research' failed: executor 'notes': ValueError: no sources\n"
        )


def test_a_missing_function_is_named_by_file_and_key_before_anything_runs(
    tmp_path: Path, runner: CliRunner
) -> None:
    team = write_workflow_team(tmp_path, notes="nope")
    result = run_team(runner, team)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {team}: workflow.steps[0].executors[0].function: "
        "function 'steps.py:nope': module has no attribute 'nope'\n"
    )
