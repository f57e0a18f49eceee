"""A scripted execution run through `mixseek exec`, exported by `mixseek runs export --format html`.

Shared by the report's CLI tests and its browser tests; hostile variants carry XSS payloads and
control characters in the prompt, a team name, the submissions and the judge's reasoning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

HTML_PAYLOAD = "<script>alert('xss')</script><img src=x onerror=alert(1)>"
# Markdown that tries a javascript: link, raw HTML with a handler and an image that would phone home
MARKDOWN_PAYLOAD = (
    "\n\n[click me](javascript:alert(1)) <svg onload=alert(2)></svg> "
    "![tracker](https://tracker.example/pixel.png)"
)
CONTROLS = "\x1b[31mred\x1b[0m\u202eevil"


@dataclass(frozen=True)
class Exported:
    workspace: Path
    execution_id: str
    report: Path


class HostileWorld(World):
    """The scripted world whose leaders append XSS payloads to their answers, whose judge appends
    one to its reasoning and whose members fail with one in their error (scores and decisions
    stay those of `World`)."""

    def leader(self, team: str) -> FunctionModel:
        inner = super().leader(team)

        async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            response: ModelResponse = await inner.function(messages, info)  # type: ignore[misc]
            parts = [
                TextPart(p.content + MARKDOWN_PAYLOAD + " " + HTML_PAYLOAD) if isinstance(p, TextPart) else p
                for p in response.parts
            ]
            return replace(response, parts=parts)

        return FunctionModel(answer, model_name=f"leader-{team}")

    def member(self) -> FunctionModel:
        async def down(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            raise RuntimeError(f"member is down {HTML_PAYLOAD}")

        return FunctionModel(down, model_name="member")

    def judgment(self) -> FunctionModel:
        inner = super().judgment()

        async def judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            response: ModelResponse = await inner.function(messages, info)  # type: ignore[misc]
            call = response.parts[0]
            assert isinstance(call, ToolCallPart) and isinstance(call.args, dict)
            args = {**call.args, "reasoning": f"{call.args['reasoning']} {HTML_PAYLOAD} {CONTROLS}"}
            return replace(response, parts=[replace(call, args=args)])

        return FunctionModel(judge, model_name="judgment")


def export_scripted(
    root: Path, prompt: str, *, world: World | None = None, team_name: str | None = None
) -> Exported:
    """Run the scripted three-team execution in a workspace under `root` (alpha's team name
    replaced by `team_name`) and export it as `root/report.html`."""
    runner = CliRunner()
    ws = write_workspace(root / "ws")
    if team_name is not None:
        alpha = ws / "configs" / "agents" / "alpha.toml"
        alpha.write_text(
            alpha.read_text(encoding="utf-8").replace(
                'team_name = "Alpha"', f"team_name = {json.dumps(team_name)}"
            ),
            encoding="utf-8",
        )
    with pytest.MonkeyPatch.context() as mp:
        for var in (
            "MIXSEEK_WORKSPACE",
            "MIXSEEK_TEAM_USER_PROMPT",
            "MIXSEEK_EVALUATOR_USER_PROMPT",
            "MIXSEEK_JUDGMENT_USER_PROMPT",
        ):
            mp.delenv(var, raising=False)
        with override_models((world or World()).models()):
            result = runner.invoke(app, ["exec", prompt, "-w", str(ws), "-f", "json"])
        assert result.exit_code in (0, 1), (result.output, result.exception)  # 1: a team failed
        assert result.stdout, (result.exit_code, result.output, result.exception)
        execution_id = json.loads(result.stdout)["execution_id"]
        report = root / "report.html"
        exported = runner.invoke(
            app, ["runs", "export", execution_id, "--format", "html", "-o", str(report), "-w", str(ws)]
        )
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == f"wrote {report} (html, execution {execution_id})\n"
    return Exported(ws, execution_id, report)
