"""`mixseek team`, `member` and `evaluate` through the CLI with scripted models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import tool_returns

TEAM_TOML = """
[team]
team_id = "alpha"
team_name = "Alpha"

[team.leader]
model = "script:leader"

[[team.members]]
agent_name = "analyst"
agent_type = "plain"
tool_description = "分析する"
model = "script:analyst"

[[team.members]]
config = "members/broken.toml"
"""

BROKEN_MEMBER = """
[member]
agent_name = "broken"
agent_type = "plain"
tool_description = "壊れている"
model = "script:broken"
"""


def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[
                ToolCallPart("delegate_to_analyst", {"task": "a"}),
                ToolCallPart("delegate_to_broken", {"task": "b"}),
            ],
            usage=RequestUsage(input_tokens=5, output_tokens=5),
        )
    returns = tool_returns(messages).values()
    return ModelResponse(
        parts=[TextPart("; ".join(sorted(returns)))], usage=RequestUsage(input_tokens=7, output_tokens=3)
    )


def analyst(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("分析結果")], usage=RequestUsage(input_tokens=2, output_tokens=4))


def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ValueError("no luck")


MODELS = {
    "script:leader": FunctionModel(leader),
    "script:analyst": FunctionModel(analyst),
    "script:broken": FunctionModel(broken),
}


def write_team(tmp_path: Path) -> Path:
    (tmp_path / "members").mkdir()
    (tmp_path / "members" / "broken.toml").write_text(BROKEN_MEMBER, encoding="utf-8")
    team = tmp_path / "team.toml"
    team.write_text(TEAM_TOML, encoding="utf-8")
    return team


def test_team_json_shows_content_member_status_and_usage(tmp_path: Path, runner: CliRunner) -> None:
    team = write_team(tmp_path)
    with override_models(MODELS):
        result = runner.invoke(app, ["team", "課題", "--config", str(team), "--output-format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["content"] == "ERROR: member 'broken' failed: ValueError: no luck; 分析結果"
    assert [
        (m["agent_name"], m["status"], m["error_message"])
        for m in sorted(data["members"], key=lambda m: m["agent_name"])
    ] == [
        ("analyst", "SUCCESS", None),
        ("broken", "ERROR", "ValueError: no luck"),
    ]
    assert data["usage"]["leader"] == {"requests": 2, "tool_calls": 2, "input_tokens": 12, "output_tokens": 8}
    assert data["usage"]["members"] == {"requests": 1, "tool_calls": 0, "input_tokens": 2, "output_tokens": 4}
    assert data["usage"]["total"] == {"requests": 3, "tool_calls": 2, "input_tokens": 14, "output_tokens": 12}


def test_team_text_output(tmp_path: Path, runner: CliRunner) -> None:
    team = write_team(tmp_path)
    with override_models(MODELS):
        result = runner.invoke(app, ["team", "課題", "--config", str(team)])
    assert result.exit_code == 0, result.output
    assert "team alpha (Alpha)" in result.stdout
    assert "ValueError: no luck" in result.stdout
    assert "analyst" in result.stdout and "SUCCESS" in result.stdout and "ERROR" in result.stdout


def test_member_command(tmp_path: Path, runner: CliRunner) -> None:
    member = tmp_path / "m.toml"
    member.write_text(BROKEN_MEMBER.replace("script:broken", "script:analyst"), encoding="utf-8")
    with override_models(MODELS):
        result = runner.invoke(app, ["member", "調べて", "-c", str(member), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "agent_name": "broken",
        "agent_type": "plain",
        "content": "分析結果",
        "usage": {"requests": 1, "tool_calls": 0, "input_tokens": 2, "output_tokens": 4},
    }


def test_member_failure_is_one_line_exit_2(tmp_path: Path, runner: CliRunner) -> None:
    member = tmp_path / "m.toml"
    member.write_text(
        BROKEN_MEMBER.replace('model = "script:broken"', 'model = "openai:gpt-4o"'), encoding="utf-8"
    )
    result = runner.invoke(app, ["member", "調べて", "-c", str(member)], env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: model 'openai:gpt-4o' for member 'broken' needs credentials: "
        "set the environment variable OPENAI_API_KEY"
    )


def test_evaluate_command_uses_workspace_template(workspace: Path, runner: CliRunner) -> None:
    seen: list[str] = []

    def judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        first = messages[0]
        assert isinstance(first, ModelRequest)
        seen.append(str(first.parts[-1].content))
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": 72.5, "comment": "良い"})]
        )

    evaluator = workspace / "configs" / "evaluator.toml"
    evaluator.write_text(
        evaluator.read_text(encoding="utf-8").replace("openai:gpt-4o-mini", "script:judge"), encoding="utf-8"
    )
    with override_models({"script:judge": FunctionModel(judge)}):
        result = runner.invoke(app, ["evaluate", "課題X", "提出Y", "-w", str(workspace), "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # the sample's exact checks: 1 of 8 patterns (no forbidden 4th proposal), 3 of 150 characters
    assert data["overall_score"] == pytest.approx(0.4 * 12.5 + 0.2 * 2.0 + (0.2 + 0.2) * 72.5)
    assert [(m["name"], m["score"], m["weight"]) for m in data["metrics"]] == [
        ("patterns", 12.5, 0.4),
        ("length", 2.0, 0.2),
        ("coverage", 72.5, 0.2),
        ("relevance", 72.5, 0.2),
    ]
    assert data["usage"]["requests"] == 2
    assert len(seen) == 2 and all("課題X" in s and "提出Y" in s for s in seen)


def test_evaluate_without_config_or_workspace(runner: CliRunner) -> None:
    result = runner.invoke(app, ["evaluate", "p", "s"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --workspace: no workspace given: pass --workspace/-w DIR or set MIXSEEK_WORKSPACE"
    )
