"""Workflow rounds with scripted models and functions: step order, in-step concurrency, the input
document each executor receives, failures, usage and the record of every executor run."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import UsageLimitExceeded
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from mixseek.agents.workflow.document import DOCUMENT_FORMAT
from mixseek.agents.workflow.team import WorkflowFailed, WorkflowTeam
from mixseek.config.prompt_defaults import WORKFLOW_AGENT_PREAMBLE as AGENT_PREAMBLE
from mixseek.config.team_models import TeamConfig
from mixseek.config.teams import load_team
from mixseek.llm import override_models, wrap_models
from mixseek.llm.retrying import RetryTiming, retry_timing
from scripting import first_user_text

Document = dict[str, Any]
WAIT = 60.0  # a bound for a barrier that only a broken engine (executors run one by one) would reach


def workflow_team(steps: list[dict[str, Any]], **workflow: Any) -> TeamConfig:
    return TeamConfig.model_validate(
        {"team_id": "gamma", "team_name": "Gamma", "workflow": {"steps": steps, **workflow}}
    )


def document(step: str, index: int, executor: str, previous: list[Document]) -> Document:
    """The input document as the README describes it, for round 2 of team gamma."""
    return {
        "format": "mixseek.workflow.input/1",
        "team_id": "gamma",
        "team_name": "Gamma",
        "round_number": 2,
        "step": {"id": step, "index": index, "executor": executor},
        "user_prompt": "課題",
        "prompt": "ラウンド2の指示",
        "previous_steps": previous,
    }


def ok(executor: str, content: str) -> Document:
    return {"executor": executor, "status": "SUCCESS", "content": content, "error": None}


def agent_document(messages: list[ModelMessage]) -> Document:
    """The JSON an agent executor is given after the one-line preamble."""
    text = first_user_text(messages)
    preamble, sep, body = text.partition("\n\n")
    assert (preamble, sep) == (AGENT_PREAMBLE, "\n\n")
    parsed: Document = json.loads(body)
    return parsed


def answer(text: str, input_tokens: int, output_tokens: int) -> ModelResponse:
    return ModelResponse(
        parts=[TextPart(text)], usage=RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
    )


async def test_steps_run_in_order_and_the_executors_of_a_step_at_once() -> None:
    finished: set[str] = set()
    seen: dict[str, Document] = {}
    research_started = asyncio.Barrier(2)
    draft_started = threading.Barrier(3)  # two agents and a sync function in its thread

    def researcher(name: str) -> Any:
        async def run(doc: Document) -> str:
            seen[name] = doc
            await research_started.wait()  # passes only when both researchers are running
            finished.add(name)
            return f"{name} notes"

        return run

    def drafter(name: str, text: str, tokens: tuple[int, int]) -> FunctionModel:
        async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            assert finished == {"facts", "sources"}  # every step-1 executor had finished
            seen[name] = agent_document(messages)
            await asyncio.to_thread(draft_started.wait, WAIT)
            finished.add(name)
            return answer(text, *tokens)

        return FunctionModel(model)

    def stats(doc: Document) -> dict[str, Any]:
        assert finished == {"facts", "sources"}
        seen["stats"] = doc
        draft_started.wait(WAIT)
        finished.add("stats")
        return {"words": 2, "ok": True, "note": "日本語"}

    def editor(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert finished == {"facts", "sources", "draft_a", "draft_b", "stats"}
        seen["editor"] = agent_document(messages)
        return answer("final text", 17, 7)

    config = workflow_team(
        [
            {
                "id": "research",
                "executors": [
                    {"name": "facts", "function": researcher("facts"), "timeout_seconds": WAIT},
                    {"name": "sources", "function": researcher("sources"), "timeout_seconds": WAIT},
                ],
            },
            {
                "id": "draft",
                "executors": [
                    {"name": "draft_a", "model": "script:draft_a"},
                    {"name": "draft_b", "model": "script:draft_b"},
                    {"name": "stats", "function": stats, "timeout_seconds": WAIT},
                ],
            },
            {"id": "edit", "input": "all", "executors": [{"name": "editor", "model": "script:editor"}]},
        ]
    )
    models = {
        "script:draft_a": drafter("draft_a", "draft A", (11, 3)),
        "script:draft_b": drafter("draft_b", "draft B", (13, 5)),
        "script:editor": FunctionModel(editor),
    }
    with override_models(models):
        result = await WorkflowTeam(config).run("ラウンド2の指示", round_number=2, user_prompt="課題")

    research = {"id": "research", "results": [ok("facts", "facts notes"), ok("sources", "sources notes")]}
    stats_json = '{"words":2,"ok":true,"note":"日本語"}'
    draft = {
        "id": "draft",
        "results": [ok("draft_a", "draft A"), ok("draft_b", "draft B"), ok("stats", stats_json)],
    }
    assert seen == {
        "facts": document("research", 0, "facts", []),
        "sources": document("research", 0, "sources", []),
        "draft_a": document("draft", 1, "draft_a", [research]),
        "draft_b": document("draft", 1, "draft_b", [research]),
        "stats": document("draft", 1, "stats", [research]),
        "editor": document("edit", 2, "editor", [research, draft]),
    }
    assert result.output == "final text"
    record = result.record
    assert (record.team_id, record.team_name, record.round_number) == ("gamma", "Gamma", 2)
    assert [(s.step_id, s.agent_name, s.agent_type, s.status, s.content) for s in record.submissions] == [
        ("research", "facts", "function", "SUCCESS", "facts notes"),
        ("research", "sources", "function", "SUCCESS", "sources notes"),
        ("draft", "draft_a", "plain", "SUCCESS", "draft A"),
        ("draft", "draft_b", "plain", "SUCCESS", "draft B"),
        ("draft", "stats", "function", "SUCCESS", stats_json),
        ("edit", "editor", "plain", "SUCCESS", "final text"),
    ]
    assert all(s.error_message is None and s.execution_time_ms is not None for s in record.submissions)
    # usage: the three agent runs' requests exactly, nothing for functions, no leader
    per_executor = [
        (s.usage.requests, s.usage.input_tokens, s.usage.output_tokens) for s in record.submissions
    ]
    assert per_executor == [(0, 0, 0), (0, 0, 0), (1, 11, 3), (1, 13, 5), (0, 0, 0), (1, 17, 7)]
    assert (result.usage.requests, result.usage.input_tokens, result.usage.output_tokens) == (3, 41, 15)
    total = record.total_usage
    assert (total.requests, total.input_tokens, total.output_tokens) == (3, 41, 15)
    assert result.leader_usage.requests == 0
    # the agents' messages, in executor order
    responses = [m for m in result.messages if isinstance(m, ModelResponse)]
    assert [p.content for m in responses for p in m.parts if isinstance(p, TextPart)] == [
        "draft A",
        "draft B",
        "final text",
    ]
    assert len(result.messages) == 6


@pytest.mark.parametrize(
    ("workflow_input", "third_input", "third_sees"),
    [
        ("previous", None, ["two"]),
        ("previous", "all", ["one", "two"]),
        ("all", None, ["one", "two"]),
        ("all", "previous", ["two"]),
    ],
)
async def test_input_previous_or_all_at_workflow_level_with_a_step_override(
    workflow_input: str, third_input: str | None, third_sees: list[str]
) -> None:
    seen: dict[str, list[str]] = {}

    def step(name: str) -> Any:
        def run(doc: Document) -> str:
            seen[name] = [s["id"] for s in doc["previous_steps"]]
            return name

        return run

    third: dict[str, Any] = {"id": "three", "executors": [{"name": "c", "function": step("c")}]}
    if third_input is not None:
        third["input"] = third_input
    config = workflow_team(
        [
            {"id": "one", "executors": [{"name": "a", "function": step("a")}]},
            {"id": "two", "executors": [{"name": "b", "function": step("b")}]},
            third,
        ],
        input=workflow_input,
    )
    result = await WorkflowTeam(config).run("課題")
    second_sees = ["one"]
    assert seen == {"a": [], "b": second_sees, "c": third_sees}
    assert result.output == "c"


def fail(doc: Document) -> str:
    raise ValueError("入力が足りない\n二行目")


async def test_a_failed_executor_fails_its_step_and_the_round() -> None:
    later: list[str] = []
    config = workflow_team(
        [
            {
                "id": "check",
                "executors": [
                    {"name": "reader", "function": lambda d: "read"},
                    {"name": "validator", "function": fail},
                ],
            },
            {
                "id": "write",
                "executors": [{"name": "writer", "function": lambda d: later.append("ran") or "x"}],
            },
        ]
    )
    with pytest.raises(WorkflowFailed) as info:
        await WorkflowTeam(config).run("課題")
    assert str(info.value) == "workflow step 'check' failed: executor 'validator': ValueError: 入力が足りない"
    assert later == []


async def test_continue_on_failure_passes_the_failure_on_and_the_round_goes_on() -> None:
    seen: list[Document] = []

    def writer(doc: Document) -> str:
        seen.append(doc["previous_steps"])
        return "written anyway"

    config = workflow_team(
        [
            {
                "id": "check",
                "continue_on_failure": True,
                "executors": [
                    {"name": "reader", "function": lambda d: "read"},
                    {"name": "validator", "function": fail},
                ],
            },
            {"id": "write", "executors": [{"name": "writer", "function": writer}]},
        ]
    )
    result = await WorkflowTeam(config).run("課題")
    assert result.output == "written anyway"
    failed = {
        "executor": "validator",
        "status": "ERROR",
        "content": "",
        "error": "ValueError: 入力が足りない",
    }
    assert seen == [[{"id": "check", "results": [ok("reader", "read"), failed]}]]
    assert [(s.step_id, s.agent_name, s.status, s.error_message) for s in result.record.submissions] == [
        ("check", "reader", "SUCCESS", None),
        ("check", "validator", "ERROR", "ValueError: 入力が足りない"),
        ("write", "writer", "SUCCESS", None),
    ]


def last_step() -> list[dict[str, Any]]:
    return [
        {"id": "draft", "executors": [{"name": "drafter", "function": lambda d: "draft"}]},
        {
            "id": "final",
            "continue_on_failure": True,
            "executors": [
                {"name": "editor", "function": fail},
                {"name": "notes", "function": lambda d: "notes"},
            ],
        },
    ]


async def test_the_output_executor_failing_fails_the_round_even_when_its_step_may_continue() -> None:
    config = workflow_team(last_step(), output="editor")
    with pytest.raises(WorkflowFailed) as info:
        await WorkflowTeam(config).run("課題")
    assert str(info.value) == (
        "workflow output executor 'editor' of step 'final' failed: ValueError: 入力が足りない"
    )


async def test_another_executor_of_the_last_step_failing_does_not_when_the_step_may_continue() -> None:
    result = await WorkflowTeam(workflow_team(last_step(), output="notes")).run("課題")
    assert result.output == "notes"
    assert [s.status for s in result.record.submissions] == ["SUCCESS", "ERROR", "SUCCESS"]


async def test_a_usage_limit_hit_by_an_agent_executor_is_raised_not_recorded() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return answer("ok", 1, 1)

    config = workflow_team(
        [
            {"id": "one", "executors": [{"name": "a", "model": "script:a"}]},
            {"id": "two", "executors": [{"name": "b", "model": "script:a"}]},
        ]
    )
    with override_models({"script:a": FunctionModel(model)}), pytest.raises(UsageLimitExceeded):
        await WorkflowTeam(config).run("課題", usage_limits=UsageLimits(request_limit=1))


async def test_a_usage_limit_hit_inside_a_function_executor_is_raised_not_recorded() -> None:
    def spends(doc: Document) -> str:
        raise UsageLimitExceeded("the execution's budget is spent")

    config = workflow_team([{"id": "one", "executors": [{"name": "a", "function": spends}]}])
    with pytest.raises(UsageLimitExceeded, match="budget is spent"):
        await WorkflowTeam(config).run("課題")


SHOUTER = """
from pydantic import BaseModel
from mixseek.agents.member.base import LLMMemberAgent, MemberResult


class ShoutOptions(BaseModel):
    suffix: str


class Shouter(LLMMemberAgent):
    options_model = ShoutOptions

    async def run(self, task, *, usage=None, usage_limits=None):
        result = await super().run(task, usage=usage, usage_limits=usage_limits)
        return MemberResult(result.content.upper() + self.options.suffix, result.usage, result.messages)
"""

PREPARE = """
def prepare(document):
    return "prepared: " + document["user_prompt"]
"""

TEAM_FILE = """
[team]
team_id = "gamma"
team_name = "Gamma"

[[workflow.steps]]
id = "prepare"
[[workflow.steps.executors]]
name = "prep"
function = "steps/prepare.py:prepare"

[[workflow.steps]]
id = "shout"
[[workflow.steps.executors]]
name = "shouter"
agent_type = "custom"
class_path = "agents/shout.py:Shouter"
model = "script:shouter"
system_instruction = "叫んでください"
max_retries = 1
temperature = 0.3
options = { suffix = "!!" }
"""


async def test_agent_executors_are_built_as_members_from_a_team_file(tmp_path: Path) -> None:
    """Member type and options, instructions and settings, retries and model wrappers (the governor's
    hook) apply to an agent executor; relative paths are taken from the team file's folder."""
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps/prepare.py").write_text(PREPARE, encoding="utf-8")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents/shout.py").write_text(SHOUTER, encoding="utf-8")
    team_file = tmp_path / "team.toml"
    team_file.write_text(TEAM_FILE, encoding="utf-8")
    calls: list[tuple[str, Any, Any]] = []

    def shouter(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(
            (
                agent_document(messages)["previous_steps"][0]["results"][0]["content"],
                info.instructions,
                (info.model_settings or {}).get("temperature"),
            )
        )
        if len(calls) == 1:
            raise ModelHTTPError(503, "script:shouter", "overloaded")  # transient: retried once
        return answer("done", 5, 2)

    wrapped: list[str] = []

    def wrapper(model: Model, model_string: str, role: str) -> Model:
        wrapped.append(f"{model_string} for {role}")
        return model

    config = load_team(team_file).config
    with override_models({"script:shouter": FunctionModel(shouter)}), wrap_models(wrapper):
        with retry_timing(RetryTiming(base_delay=0.01, max_delay=0.05)):
            team = WorkflowTeam(config, base_dir=team_file.parent)
        result = await team.run("課題")

    assert wrapped == ["script:shouter for executor 'shouter' of team 'gamma'"]
    assert calls == [("prepared: 課題", "叫んでください", 0.3)] * 2
    assert result.output == "DONE!!"
    assert [(s.agent_name, s.agent_type, s.status, s.content) for s in result.record.submissions] == [
        ("prep", "function", "SUCCESS", "prepared: 課題"),
        ("shouter", "custom", "SUCCESS", "DONE!!"),
    ]
    assert (result.usage.requests, result.usage.input_tokens, result.usage.output_tokens) == (1, 5, 2)
    assert DOCUMENT_FORMAT == "mixseek.workflow.input/1"
