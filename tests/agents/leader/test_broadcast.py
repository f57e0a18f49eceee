"""Broadcast dispatch with scripted models: every member once per round and at once, failures
recorded and shown to a tool-less leader, usage summed exactly, records in team-file order.

Concurrency is proven without timing: members wait on each other (a barrier, a condition), each
wait bounded by a generous `asyncio.wait_for` so that a bug fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from typing import Any

import pytest
from pydantic_ai import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.agents.leader.agent import LeaderTeam, broadcast_prompt
from mixseek.agents.leader.models import MemberSubmission
from mixseek.config.prompt_defaults import DEFAULT_BROADCAST_LEADER_INSTRUCTION
from mixseek.config.team_models import TeamConfig
from mixseek.llm import override_models
from scripting import first_user_text

PATIENCE = 30.0
"""Seconds a member waits for the others: far longer than any healthy run takes."""


async def patiently(awaitable: Awaitable[Any], what: str) -> None:
    """Wait for `what`, failing (not retried: it is no transient error) after `PATIENCE` seconds."""
    try:
        await asyncio.wait_for(awaitable, PATIENCE)
    except TimeoutError:
        raise AssertionError(f"waited {PATIENCE:g} s for {what}") from None


LEADER_USAGE = RequestUsage(input_tokens=100, output_tokens=20)


def member_usage(i: int) -> RequestUsage:
    return RequestUsage(input_tokens=10 + i, output_tokens=1 + i)


def broadcast_team(members: list[dict[str, Any]], **team: Any) -> TeamConfig:
    return TeamConfig.model_validate(
        {
            "team_id": "wide",
            "team_name": "Wide",
            "member_dispatch": "broadcast",
            "leader": {"model": "script:leader"},
            "members": [
                {"agent_type": "plain", "tool_description": "d", "model": f"script:{m['agent_name']}", **m}
                for m in members
            ],
            **team,
        }
    )


class Leader:
    """Writes the submission; remembers what it was sent and offered."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.tools: list[list[Any]] = []
        self.instructions: list[str | None] = []

    def model(self) -> FunctionModel:
        def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.prompts.append(first_user_text(messages))
            self.tools.append(list(info.function_tools))
            self.instructions.append(info.instructions)
            return ModelResponse(parts=[TextPart(f"submission {len(self.prompts)}")], usage=LEADER_USAGE)

        return FunctionModel(leader)


class Members:
    """N members that all wait until every one of them has started, then finish in reverse
    team-file order (the last one first)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.calls: Counter[str] = Counter()
        self.tasks: dict[str, list[str]] = {}
        self.finished: list[str] = []
        self.all_started = asyncio.Barrier(count)
        self.turn = asyncio.Condition()

    def model(self, i: int) -> FunctionModel:
        name = f"m{i}"

        async def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.calls[name] += 1
            self.tasks.setdefault(name, []).append(first_user_text(messages))
            await patiently(self.all_started.wait(), "every member to start")
            async with self.turn:
                # m{count-1} finishes first, m0 last
                await patiently(
                    self.turn.wait_for(lambda: len(self.finished) % self.count == self.count - 1 - i),
                    f"the members after {name} to finish",
                )
                self.finished.append(name)
                self.turn.notify_all()
            return ModelResponse(parts=[TextPart(f"{name} answer")], usage=member_usage(i))

        return FunctionModel(member)


async def test_every_member_answers_once_per_round_at_once_and_the_leader_writes_from_all() -> None:
    members = Members(3)
    leader = Leader()
    models = {"script:leader": leader.model(), **{f"script:m{i}": members.model(i) for i in range(3)}}
    with override_models(models):
        team = LeaderTeam(broadcast_team([{"agent_name": f"m{i}"} for i in range(3)]))
        first = await team.run("課題 1", round_number=1)
        second = await team.run("課題 2", round_number=2)

    # once per round each, the round's prompt as the task; every member waited for all to start
    assert members.calls == {"m0": 2, "m1": 2, "m2": 2}
    assert members.tasks == {f"m{i}": ["課題 1", "課題 2"] for i in range(3)}
    # they finished last-first, yet are recorded (and shown to the leader) in team-file order
    assert members.finished == ["m2", "m1", "m0", "m2", "m1", "m0"]
    for round_number, result in ((1, first), (2, second)):
        record = result.record
        assert (record.team_id, record.round_number) == ("wide", round_number)
        assert [
            (s.agent_name, s.agent_type, s.status, s.content, s.error_message) for s in record.submissions
        ] == [(f"m{i}", "plain", "SUCCESS", f"m{i} answer", None) for i in range(3)]
        assert all(s.step_id is None and s.execution_time_ms is not None for s in record.submissions)
    assert (first.output, second.output) == ("submission 1", "submission 2")

    # the leader is sent the prompt with every answer, offered no tools, told to merge
    assert leader.prompts == [
        "課題 1\n\n---\n## メンバーの回答（3件中3件成功）\n\n"
        "### m0（plain）\nm0 answer\n\n### m1（plain）\nm1 answer\n\n### m2（plain）\nm2 answer\n\n---\n"
        "上記のメンバーの回答を踏まえて、タスクに対する最終的な提出物を作成してください。",
        broadcast_prompt("課題 2", second.record.submissions),
    ]
    assert leader.tools == [[], []]
    assert leader.instructions == [DEFAULT_BROADCAST_LEADER_INSTRUCTION] * 2


async def test_usage_is_the_leaders_plus_each_members_exactly() -> None:
    members = Members(3)
    with override_models(
        {"script:leader": Leader().model(), **{f"script:m{i}": members.model(i) for i in range(3)}}
    ):
        result = await LeaderTeam(broadcast_team([{"agent_name": f"m{i}"} for i in range(3)])).run("x")

    for i, submission in enumerate(result.record.submissions):
        usage = submission.usage
        assert (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 10 + i, 1 + i)
    leader = result.leader_usage
    assert (leader.requests, leader.input_tokens, leader.output_tokens) == (1, 100, 20)
    members_total = result.record.total_usage
    assert (members_total.requests, members_total.input_tokens, members_total.output_tokens) == (3, 33, 6)
    total = result.usage
    assert (total.requests, total.input_tokens, total.output_tokens) == (4, 133, 26)
    assert total.tool_calls == 0


async def test_max_concurrent_members_bounds_how_many_run_at_once() -> None:
    running = 0
    started = 0
    peak = 0
    changed = asyncio.Condition()

    async def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal running, started, peak
        async with changed:
            running += 1
            started += 1
            peak = max(peak, running)
            changed.notify_all()
            # go on only once the slots are full (or nobody else is coming): a peak above the
            # bound would be seen, and a bound below it would leave this waiting
            await patiently(changed.wait_for(lambda: running == 2 or started == 5), "a full set of slots")
            running -= 1
        return ModelResponse(parts=[TextPart("ok")])

    # a broadcast team may have more members than slots: they take turns
    config = broadcast_team(
        [{"agent_name": f"m{i}", "model": "script:m"} for i in range(5)], max_concurrent_members=2
    )
    with override_models({"script:leader": Leader().model(), "script:m": FunctionModel(member)}):
        result = await LeaderTeam(config).run("x")
    assert peak == 2
    assert started == 5
    assert [s.status for s in result.record.submissions] == ["SUCCESS"] * 5


async def test_failing_members_are_recorded_shown_to_the_leader_and_do_not_stop_the_others() -> None:
    broken_failed = asyncio.Event()
    stuck_started = asyncio.Event()

    async def good(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # still running after one member failed and while another hangs
        await patiently(broken_failed.wait(), "the broken member to fail")
        await patiently(stuck_started.wait(), "the stuck member to start")
        return ModelResponse(parts=[TextPart("good answer")], usage=member_usage(0))

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        broken_failed.set()
        raise RuntimeError("upstream exploded\nsecond line")

    async def stuck(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        stuck_started.set()
        await asyncio.Event().wait()  # never answers: only its timeout ends it
        raise AssertionError("unreachable")

    leader = Leader()
    models = {
        "script:leader": leader.model(),
        "script:good": FunctionModel(good),
        "script:broken": FunctionModel(broken),
        "script:stuck": FunctionModel(stuck),
    }
    config = broadcast_team(
        [
            {"agent_name": "good"},
            {"agent_name": "broken", "agent_type": "web-fetch"},
            {"agent_name": "stuck", "timeout_seconds": 1},
        ]
    )
    with override_models(models):
        result = await LeaderTeam(config).run("課題")

    assert [(s.agent_name, s.status, s.content, s.error_message) for s in result.record.submissions] == [
        ("good", "SUCCESS", "good answer", None),
        ("broken", "ERROR", "", "RuntimeError: upstream exploded"),
        ("stuck", "ERROR", "", "timed out after 1 s"),
    ]
    assert (result.record.success_count, result.record.failure_count) == (1, 2)
    assert result.output == "submission 1"
    assert leader.prompts == [
        "課題\n\n---\n## メンバーの回答（3件中1件成功）\n\n"
        "### good（plain）\ngood answer\n\n"
        "### broken（web-fetch）: 失敗\nエラー: RuntimeError: upstream exploded\n\n"
        "### stuck（plain）: 失敗\nエラー: timed out after 1 s\n\n---\n"
        "上記のメンバーの回答を踏まえて、タスクに対する最終的な提出物を作成してください。"
    ]
    # the failed members cost nothing that was answered; the total is still exact
    assert (result.usage.requests, result.usage.input_tokens, result.usage.output_tokens) == (2, 110, 21)


async def test_a_timeout_the_member_raises_itself_is_its_own_error_not_the_deadline() -> None:
    def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise TimeoutError("search backend did not answer")

    config = broadcast_team([{"agent_name": "searcher", "timeout_seconds": 600, "max_retries": 0}])
    with override_models({"script:leader": Leader().model(), "script:searcher": FunctionModel(member)}):
        result = await LeaderTeam(config).run("x")
    (submission,) = result.record.submissions
    assert (submission.status, submission.error_message) == (
        "ERROR",
        "TimeoutError: search backend did not answer",
    )


async def test_a_usage_limit_hit_by_a_member_stops_the_round_and_the_leader_never_runs() -> None:
    hanging_started = asyncio.Event()
    cancelled: list[str] = []
    leader = Leader()

    async def hanging(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        hanging_started.set()
        try:
            await patiently(asyncio.Event().wait(), "the round to be cancelled")
        except asyncio.CancelledError:
            cancelled.append("hanging")
            raise
        raise AssertionError("unreachable")

    async def over_budget(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await patiently(hanging_started.wait(), "the hanging member to start")
        raise UsageLimitExceeded("budget max_requests = 3 reached (3 spent)")

    models = {
        "script:leader": leader.model(),
        "script:hanging": FunctionModel(hanging),
        "script:spender": FunctionModel(over_budget),
    }
    config = broadcast_team([{"agent_name": "hanging"}, {"agent_name": "spender"}])
    with override_models(models), pytest.raises(UsageLimitExceeded, match="budget max_requests = 3"):
        await LeaderTeam(config).run("x")
    assert cancelled == ["hanging"]
    assert leader.prompts == []


def test_broadcast_prompt_text_for_a_fixed_input() -> None:
    submissions = [
        MemberSubmission(agent_name="a", agent_type="plain", content="答えA\n二行目", status="SUCCESS"),
        MemberSubmission(
            agent_name="b", agent_type="code-exec", content="", status="ERROR", error_message="ValueError: x"
        ),
        MemberSubmission(agent_name="c", agent_type="custom", content="", status="ERROR"),
    ]
    assert broadcast_prompt("## タスク\n要約せよ", submissions) == (
        "## タスク\n要約せよ\n\n---\n## メンバーの回答（3件中1件成功）\n\n"
        "### a（plain）\n答えA\n二行目\n\n"
        "### b（code-exec）: 失敗\nエラー: ValueError: x\n\n"
        "### c（custom）: 失敗\nエラー: 不明なエラー\n\n---\n"
        "上記のメンバーの回答を踏まえて、タスクに対する最終的な提出物を作成してください。"
    )


async def test_the_leaders_own_system_prompt_replaces_the_broadcast_default() -> None:
    leader = Leader()
    members = Members(1)
    config = broadcast_team(
        [{"agent_name": "m0"}], leader={"model": "script:leader", "system_prompt": "統合役"}
    )
    with override_models({"script:leader": leader.model(), "script:m0": members.model(0)}):
        await LeaderTeam(config).run("x")
    assert leader.instructions == ["統合役"]
    assert leader.tools == [[]]


def test_only_a_selective_team_is_limited_to_max_concurrent_members_members() -> None:
    members = [{"agent_name": f"m{i}", "model": "script:m"} for i in range(3)]
    assert len(broadcast_team(members, max_concurrent_members=2).members) == 3
    with pytest.raises(ValueError, match=r"Too many members: 3 > 2"):
        broadcast_team(members, max_concurrent_members=2, member_dispatch="selective")
