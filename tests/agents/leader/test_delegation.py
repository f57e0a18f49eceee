"""Leader delegation with scripted models: tools from config, concurrency, errors, usage."""

from __future__ import annotations

import asyncio
import time

import pytest
from pydantic_ai import ModelMessagesTypeAdapter, RunUsage
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.agents.leader.agent import LeaderTeam
from mixseek.config.prompt_defaults import DEFAULT_LEADER_SYSTEM_INSTRUCTION
from mixseek.config.team_models import TeamConfig
from mixseek.llm import override_models
from scripting import tool_returns


def team_config(**leader: object) -> TeamConfig:
    return TeamConfig.model_validate(
        {
            "team_id": "alpha",
            "team_name": "Alpha",
            "max_concurrent_members": 4,
            "leader": {"model": "script:leader", **leader},
            "members": [
                {
                    "agent_name": "analyst",
                    "agent_type": "plain",
                    "tool_description": "データを分析する",
                    "model": "script:analyst",
                },
                {
                    "agent_name": "critic",
                    "agent_type": "plain",
                    "tool_name": "ask_critic",
                    "tool_description": "弱点を指摘する",
                    "model": "script:critic",
                    "timeout_seconds": 1,
                },
            ],
        }
    )


def fan_out_leader(seen: dict[str, object]) -> FunctionModel:
    """Calls both members in one response, then answers with what they returned."""

    def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["tools"] = [(t.name, t.description) for t in info.function_tools]
        seen["instructions"] = info.instructions
        seen["settings"] = info.model_settings
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart("delegate_to_analyst", {"task": "集計して"}),
                    ToolCallPart("ask_critic", {"task": "批評して"}),
                ],
                usage=RequestUsage(input_tokens=10, output_tokens=5),
            )
        returns = tool_returns(messages)
        return ModelResponse(
            parts=[TextPart(f"final: {returns['delegate_to_analyst']} | {returns['ask_critic']}")],
            usage=RequestUsage(input_tokens=20, output_tokens=7),
        )

    return FunctionModel(leader)


def slow_member(name: str, spans: dict[str, tuple[float, float]], delay: float = 0.3) -> FunctionModel:
    async def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        start = time.perf_counter()
        await asyncio.sleep(delay)
        spans[name] = (start, time.perf_counter())
        return ModelResponse(
            parts=[TextPart(f"{name} done")], usage=RequestUsage(input_tokens=3, output_tokens=2)
        )

    return FunctionModel(member)


async def test_leader_calls_two_members_concurrently_and_records_both() -> None:
    seen: dict[str, object] = {}
    spans: dict[str, tuple[float, float]] = {}
    models = {
        "script:leader": fan_out_leader(seen),
        "script:analyst": slow_member("analyst", spans),
        "script:critic": slow_member("critic", spans),
    }
    with override_models(models):
        team = LeaderTeam(team_config(temperature=0.2, max_tokens=500, seed=7, top_p=0.9))
        result = await team.run("課題", round_number=2)

    assert result.output == "final: analyst done | critic done"
    assert seen["tools"] == [("delegate_to_analyst", "データを分析する"), ("ask_critic", "弱点を指摘する")]
    assert seen["instructions"] == DEFAULT_LEADER_SYSTEM_INSTRUCTION
    settings = seen["settings"]
    assert isinstance(settings, dict)
    assert (settings["temperature"], settings["max_tokens"], settings["seed"], settings["top_p"]) == (
        0.2,
        500,
        7,
        0.9,
    )
    assert settings["timeout"] == 300
    # the two member runs overlap in time
    (a_start, a_end), (c_start, c_end) = spans["analyst"], spans["critic"]
    assert a_start < c_end and c_start < a_end
    record = result.record
    assert (record.team_id, record.team_name, record.round_number) == ("alpha", "Alpha", 2)
    assert sorted((s.agent_name, s.status, s.content) for s in record.submissions) == [
        ("analyst", "SUCCESS", "analyst done"),
        ("critic", "SUCCESS", "critic done"),
    ]
    assert all(s.execution_time_ms is not None and s.execution_time_ms >= 300 for s in record.submissions)
    # usage adds up exactly: leader's own two requests plus each member's one request
    assert result.leader_usage.requests == 2
    assert (result.leader_usage.input_tokens, result.leader_usage.output_tokens) == (30, 12)
    assert (
        record.total_usage.requests,
        record.total_usage.input_tokens,
        record.total_usage.output_tokens,
    ) == (
        2,
        6,
        4,
    )
    assert (result.usage.requests, result.usage.input_tokens, result.usage.output_tokens) == (4, 36, 16)
    assert result.usage.tool_calls == 2


async def test_failing_member_is_recorded_and_leader_still_answers() -> None:
    spans: dict[str, tuple[float, float]] = {}

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError("upstream exploded\nsecond line")

    models = {
        "script:leader": fan_out_leader({}),
        "script:analyst": slow_member("analyst", spans, delay=0.01),
        "script:critic": FunctionModel(broken),
    }
    with override_models(models):
        result = await LeaderTeam(team_config()).run("課題")

    assert result.output == (
        "final: analyst done | ERROR: member 'critic' failed: RuntimeError: upstream exploded"
    )
    by_name = {s.agent_name: s for s in result.record.submissions}
    assert by_name["analyst"].status == "SUCCESS"
    assert by_name["critic"].status == "ERROR"
    assert by_name["critic"].error_message == "RuntimeError: upstream exploded"
    assert by_name["critic"].content == ""
    assert (result.record.success_count, result.record.failure_count, result.record.total_count) == (1, 1, 2)
    assert [s.agent_name for s in result.record.failed_submissions] == ["critic"]


async def test_member_timeout_is_an_error_record() -> None:
    spans: dict[str, tuple[float, float]] = {}
    models = {
        "script:leader": fan_out_leader({}),
        "script:analyst": slow_member("analyst", spans, delay=0.01),
        "script:critic": slow_member("critic", spans, delay=5),
    }
    started = time.perf_counter()
    with override_models(models):
        result = await LeaderTeam(team_config()).run("課題")
    assert time.perf_counter() - started < 3
    critic = next(s for s in result.record.submissions if s.agent_name == "critic")
    assert (critic.status, critic.error_message) == ("ERROR", "timed out after 1 s")
    assert result.output.endswith("ERROR: member 'critic' failed: timed out after 1 s")


async def test_max_concurrent_members_caps_parallel_calls() -> None:
    running = 0
    peak = 0

    async def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return ModelResponse(parts=[TextPart("ok")])

    def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(f"delegate_to_m{i}", {"task": "t"}) for i in range(4)])
        return ModelResponse(parts=[TextPart("done")])

    config = TeamConfig.model_validate(
        {
            "team_id": "wide",
            "team_name": "Wide",
            "max_concurrent_members": 4,
            "leader": {"model": "script:leader"},
            "members": [
                {"agent_name": f"m{i}", "agent_type": "plain", "tool_description": "d", "model": "script:m"}
                for i in range(4)
            ],
        }
    )
    config.max_concurrent_members = 2
    with override_models({"script:leader": FunctionModel(leader), "script:m": FunctionModel(member)}):
        result = await LeaderTeam(config).run("x")
    assert result.record.success_count == 4
    assert peak == 2


async def test_team_without_members_is_a_leader_alone() -> None:
    seen: dict[str, object] = {}

    def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["tools"] = info.function_tools
        seen["instructions"] = info.instructions
        return ModelResponse(parts=[TextPart("solo answer")])

    config = TeamConfig.model_validate(
        {
            "team_id": "solo",
            "team_name": "Solo",
            "leader": {"model": "script:leader", "system_prompt": "独りで答えるリーダー"},
        }
    )
    with override_models({"script:leader": FunctionModel(leader)}):
        result = await LeaderTeam(config).run("質問")
    assert result.output == "solo answer"
    assert seen["tools"] == []
    assert seen["instructions"] == "独りで答えるリーダー"
    assert result.record.total_count == 0
    assert result.record.total_usage == RunUsage()


async def test_message_history_json_loads_back_into_messages() -> None:
    spans: dict[str, tuple[float, float]] = {}
    models = {
        "script:leader": fan_out_leader({}),
        "script:analyst": slow_member("analyst", spans, delay=0),
        "script:critic": slow_member("critic", spans, delay=0),
    }
    with override_models(models):
        result = await LeaderTeam(team_config()).run("課題")
    loaded = ModelMessagesTypeAdapter.validate_json(result.messages_json())
    assert len(loaded) == len(result.messages) == 4
    assert isinstance(loaded[1], ModelResponse)
    assert [p.tool_name for p in loaded[1].parts if isinstance(p, ToolCallPart)] == [
        "delegate_to_analyst",
        "ask_critic",
    ]
    final = loaded[-1]
    assert isinstance(final, ModelResponse)
    assert final.parts[0] == TextPart("final: analyst done | critic done")


async def test_transient_leader_error_retries_only_that_call() -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    calls = 0

    def flaky(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ModelHTTPError(429, "script", headers={"retry-after": "0"})
        return ModelResponse(parts=[TextPart("after retry")])

    config = TeamConfig.model_validate(
        {"team_id": "t", "team_name": "T", "leader": {"model": "script:flaky", "max_retries": 2}}
    )
    with override_models({"script:flaky": FunctionModel(flaky)}):
        result = await LeaderTeam(config).run("x")
    assert result.output == "after retry"
    assert calls == 2


async def test_non_transient_leader_error_is_not_retried() -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    calls = 0

    def bad_request(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        raise ModelHTTPError(400, "script", body="bad")

    config = TeamConfig.model_validate({"team_id": "t", "team_name": "T", "leader": {"model": "script:bad"}})
    with override_models({"script:bad": FunctionModel(bad_request)}), pytest.raises(ModelHTTPError):
        await LeaderTeam(config).run("x")
    assert calls == 1


async def test_members_are_withdrawn_after_max_delegation_rounds() -> None:
    offered: list[int] = []

    def eager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append(len(info.function_tools))
        if info.function_tools:
            return ModelResponse(parts=[ToolCallPart("delegate_to_analyst", {"task": "again"})])
        return ModelResponse(parts=[TextPart("forced to answer")])

    config = TeamConfig.model_validate(
        {
            "team_id": "loop",
            "team_name": "Loop",
            "leader": {"model": "script:eager", "max_delegation_rounds": 2},
            "members": [
                {"agent_name": "analyst", "agent_type": "plain", "tool_description": "d", "model": "script:m"}
            ],
        }
    )
    member = FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("ok")]))
    with override_models({"script:eager": FunctionModel(eager), "script:m": member}):
        result = await LeaderTeam(config).run("x")
    assert result.output == "forced to answer"
    assert offered == [1, 1, 0]
    assert result.record.total_count == 2
