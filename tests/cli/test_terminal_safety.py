"""Model output with escape sequences never reaches a terminal or a Markdown file; JSON keeps it exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

# clear screen, a colour, a window title (OSC), a bell, a backspace, an 8-bit CSI, a bidi override
EVIL = "\x1b[2J\x1b[31mred\x1b[0m \x1b]0;pwned\x07title bell\x07 back\x08space \x9b1mc1 \u202eevil\u202c"
SHOWN = "red title bell backspace c1 evil"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _evil(model: Model, *, text: bool = False, arg: str | None = None) -> FunctionModel:
    """`model` with EVIL appended to its text answer or to one argument of its output tool call."""
    assert isinstance(model, FunctionModel) and model.function is not None
    inner = model.function

    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = await inner(messages, info)  # type: ignore[misc]
        parts = []
        for part in response.parts:
            if text and isinstance(part, TextPart):
                part = TextPart(part.content + " " + EVIL)
            elif arg and isinstance(part, ToolCallPart) and isinstance(part.args, dict):
                part = ToolCallPart(part.tool_name, {**part.args, arg: f"{part.args[arg]} {EVIL}"})
            parts.append(part)
        return ModelResponse(parts=parts, usage=response.usage)

    return FunctionModel(fn, model_name=model.model_name)


def evil_models() -> dict[str, Model]:
    models = World().models()
    models["script:member"] = _evil(models["script:member"], text=True)
    models["script:metric"] = _evil(models["script:metric"], arg="comment")
    models["script:judgment"] = _evil(models["script:judgment"], arg="reasoning")
    return models


def assert_clean(output: str) -> None:
    assert CONTROL.findall(output) == []
    assert SHOWN in output  # the visible text is kept


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    """One execution whose member answers, metric comments and judgment reasons hold EVIL."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        ws = write_workspace(tmp_path_factory.mktemp("evil") / "ws", max_rounds=2)
        with override_models(evil_models()):
            result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    execution_id = re.search(r"execution (\S+): completed", result.stdout)
    assert execution_id is not None, result.stdout
    return ws, execution_id.group(1), result.stdout, result.stderr


def test_exec_summary_and_log_lines_have_no_control_characters(executed: tuple[Path, str, str, str]) -> None:
    _, _, stdout, stderr = executed
    assert_clean(stdout)  # the winner panel holds the member's answer
    assert_clean(stderr)  # the event lines hold the judgment's reasoning


def test_exec_json_keeps_the_exact_text(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=3)
    with override_models(evil_models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["best"]["content"] == f"alpha answer v3 (member did round 3 {EVIL})"


def test_runs_show_text_is_clean_and_json_exact(
    executed: tuple[Path, str, str, str], runner: CliRunner
) -> None:
    ws, execution_id, _, _ = executed
    text = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)])
    assert text.exit_code == 0, text.output
    assert_clean(text.stdout)
    doc = json.loads(runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"]).stdout)
    assert doc["best"]["content"].endswith(EVIL + ")")
    assert doc["teams"][0]["rounds"][0]["judgment"]["reasoning"].endswith(EVIL)


def test_markdown_export_is_clean_and_json_export_exact(
    executed: tuple[Path, str, str, str], runner: CliRunner, tmp_path: Path
) -> None:
    ws, execution_id, _, _ = executed
    report = tmp_path / "report.md"
    args = ["runs", "export", execution_id, "-w", str(ws), "--format"]
    assert runner.invoke(app, [*args, "markdown", "-o", str(report)]).exit_code == 0
    assert_clean(report.read_text(encoding="utf-8"))
    printed = runner.invoke(app, [*args, "markdown"])
    assert_clean(printed.stdout)
    exported = json.loads(runner.invoke(app, [*args, "json"]).stdout)
    rounds = exported["teams"][0]["rounds"]
    assert rounds[0]["submission"].endswith(EVIL + ")")
    assert all(m["comment"].endswith(EVIL) for m in rounds[0]["metrics"].values())


TEAM = """
[team]
team_id = "alpha"
team_name = "Alpha"
[team.leader]
model = "script:leader-alpha"
[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "script:member"
"""


def test_team_and_member_text_are_clean_and_json_exact(tmp_path: Path, runner: CliRunner) -> None:
    team = tmp_path / "team.toml"
    team.write_text(TEAM, encoding="utf-8")
    member = tmp_path / "member.toml"
    member.write_text(
        '[member]\nagent_name = "helper"\nagent_type = "plain"\ntool_description = "x"\n'
        'model = "script:member"\n',
        encoding="utf-8",
    )
    with override_models(evil_models()):
        team_text = runner.invoke(app, ["team", "課題", "-c", str(team)])
        team_json = runner.invoke(app, ["team", "課題", "-c", str(team), "-f", "json"])
        member_text = runner.invoke(app, ["member", "課題", "-c", str(member)])
        member_json = runner.invoke(app, ["member", "課題", "-c", str(member), "-f", "json"])
    for result in (team_text, team_json, member_text, member_json):
        assert result.exit_code == 0, result.output
    assert_clean(team_text.stdout)
    assert_clean(member_text.stdout)
    assert json.loads(team_json.stdout)["content"].endswith(EVIL + ")")
    assert json.loads(member_json.stdout)["content"] == f"member did 課題 {EVIL}"


def test_evaluate_text_is_clean_and_json_exact(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    args = ["evaluate", "課題", "alpha answer v1", "-w", str(ws)]
    with override_models(evil_models()):
        text = runner.invoke(app, args, env={"COLUMNS": "300"})  # the comment on one line
        as_json = runner.invoke(app, [*args, "-f", "json"])
    assert text.exit_code == 0, text.output
    assert_clean(text.stdout)
    assert {m["comment"] for m in json.loads(as_json.stdout)["metrics"]} == {f"alpha answer v1 ok {EVIL}"}
