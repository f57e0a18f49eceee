"""Stored executions for the dashboard's tests, written by real `mixseek exec` runs with scripted
models (pydantic-ai `FunctionModel`s): one whose every model-written field carries XSS payloads.

`run_exec` runs the CLI in a worker thread (`in_thread`): a module's browser tests hold
Playwright's event loop on the main thread, where `asyncio.run` (which `mixseek exec` calls)
would refuse to start.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner, Result

from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text, tool_returns

T = TypeVar("T")

PAYLOADS = (
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "[click](javascript:window.__xss=1)",
    '<a href="javascript:window.__xss=1">x</a>',
    '"><svg onload=window.__xss=1>',
)
PAYLOAD_LINE = " ".join(PAYLOADS)
PAYLOAD_BLOCK = "\n\n".join(PAYLOADS)
"""The payloads as Markdown paragraphs (how a submission or a comment carries them)."""

EVIL_TEAM_ID = '"><svg onload=window.__xss=1>'
"""A team id is config text too: it reaches URLs and attributes."""
EVIL_TEAM_NAME = f"Team {PAYLOAD_LINE}"
ROUND_RE = re.compile(r"^## ラウンド (\d+)$", re.M)


def round_of(messages: list[ModelMessage]) -> int:
    """The round a leader works on: one more than the rounds its prompt's history lists."""
    return len(ROUND_RE.findall(first_user_text(messages))) + 1


def toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def in_thread(work: Callable[[], T]) -> T:
    """`work()` in a thread of its own, where no event loop runs; its result or its exception."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # handed to the caller
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    result: T = outcome["result"]
    return result


def run_exec(root: Path, prompt: str, models: dict[str, Model], *args: str) -> str:
    """`mixseek exec PROMPT -w ROOT ARGS` with `models`; the new execution's id."""

    def work() -> Result:
        with override_models(models):
            return CliRunner().invoke(app, ["exec", prompt, "-w", str(root), "-f", "json", *args])

    result = in_thread(work)
    assert result.exit_code in (0, 1), result.output
    execution_id: str = json.loads(result.stdout)["execution_id"]
    return execution_id


# -- the XSS world ------------------------------------------------------------------------


def _leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Round N: asks every member (with a payload for a task), then submits the payloads."""
    n = round_of(messages)
    if info.function_tools and not tool_returns(messages):
        calls = [ToolCallPart(tool.name, {"task": PAYLOAD_LINE}) for tool in info.function_tools]
        return ModelResponse(parts=calls, usage=RequestUsage(input_tokens=100, output_tokens=10))
    text = f"# Round {n}\n\n{PAYLOAD_BLOCK}\n\nversion {n}"
    return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=100, output_tokens=20))


def _member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[TextPart(PAYLOAD_BLOCK)], usage=RequestUsage(input_tokens=30, output_tokens=5)
    )


def _broken_member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError(f"broken: {PAYLOAD_LINE}")


def _metric(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    call = ToolCallPart(info.output_tools[0].name, {"score": 64.0, "comment": PAYLOAD_BLOCK})
    return ModelResponse(parts=[call], usage=RequestUsage(input_tokens=50, output_tokens=8))


def _judgment(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    args = {"should_continue": True, "reasoning": PAYLOAD_BLOCK, "confidence_score": 0.5}
    call = ToolCallPart(info.output_tools[0].name, args)
    return ModelResponse(parts=[call], usage=RequestUsage(input_tokens=40, output_tokens=6))


def xss_models() -> dict[str, Model]:
    return {
        "script:xss-leader": FunctionModel(_leader, model_name=PAYLOAD_LINE),
        "script:xss-member": FunctionModel(_member, model_name="member"),
        "script:xss-broken": FunctionModel(_broken_member, model_name="broken"),
        "script:xss-metric": FunctionModel(_metric, model_name="metric"),
        "script:xss-judgment": FunctionModel(_judgment, model_name="judgment"),
    }


def _team_toml(team_id: str, team_name: str) -> str:
    return f"""
[team]
team_id = {toml_string(team_id)}
team_name = {toml_string(team_name)}

[team.leader]
model = "script:xss-leader"
max_retries = 0

[[team.members]]
agent_name = "writer"
agent_type = "plain"
tool_description = {toml_string(PAYLOAD_LINE)}
model = "script:xss-member"
max_retries = 0

[[team.members]]
agent_name = "broken"
agent_type = "plain"
tool_description = "fails"
model = "script:xss-broken"
max_retries = 0
"""


def write_xss_workspace(root: Path) -> Path:
    """Two teams over two rounds: one whose id and name are payloads, one with a payload name."""
    agents = root / "configs" / "agents"
    agents.mkdir(parents=True)
    (root / "configs" / "orchestrator.toml").write_text(
        """
[orchestrator]
max_rounds = 2
min_rounds = 1
max_concurrent_teams = 2
retry_base_delay_seconds = 0.01
retry_max_delay_seconds = 0.05
[[orchestrator.teams]]
config = "agents/evil.toml"
[[orchestrator.teams]]
config = "agents/beta.toml"
""",
        encoding="utf-8",
    )
    (agents / "evil.toml").write_text(_team_toml(EVIL_TEAM_ID, EVIL_TEAM_NAME), encoding="utf-8")
    (agents / "beta.toml").write_text(_team_toml("beta", f"Beta {PAYLOADS[0]}"), encoding="utf-8")
    (root / "configs" / "evaluator.toml").write_text(
        """
[evaluator]
model = "script:xss-metric"
max_retries = 0
[[evaluator.metrics]]
name = "clarity_coherence"
[[evaluator.metrics]]
name = "relevance"
""",
        encoding="utf-8",
    )
    (root / "configs" / "judgment.toml").write_text(
        '[judgment]\nmodel = "script:xss-judgment"\nmax_retries = 0\n', encoding="utf-8"
    )
    return root
