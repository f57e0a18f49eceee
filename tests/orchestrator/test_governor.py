"""The governor: shared per-model limits, the usage ledger, budgets."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from pydantic_ai import Agent, RunUsage
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.agents.leader.models import usage_from_dict
from mixseek.llm import create_model, override_models, wrap_models
from mixseek.llm.governor import (
    Budget,
    BudgetExceeded,
    Governor,
    ModelLimit,
    RateLimiter,
    call_scope,
)


def slow_model(running: list[int], peak: list[int]) -> FunctionModel:
    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.05)
        running[0] -= 1
        return ModelResponse(parts=[TextPart("ok")], usage=RequestUsage(input_tokens=10, output_tokens=5))

    return FunctionModel(fn)


async def test_concurrency_cap_is_shared_by_every_agent_using_the_model() -> None:
    running, peak = [0], [0]
    governor = Governor(Budget(), ModelLimit(max_concurrent=2, requests_per_minute=None))
    with override_models({"script:x": slow_model(running, peak)}), wrap_models(governor.wrap):
        agents = [Agent(create_model("script:x", role=f"leader of team 't{i}'")) for i in range(6)]
    await asyncio.gather(*(a.run("hi") for a in agents))
    assert peak[0] == 2
    assert governor.ledger.total.requests == 6
    assert (governor.ledger.total.input_tokens, governor.ledger.total.output_tokens) == (60, 30)


async def test_per_model_limits_override_the_default() -> None:
    running, peak = [0], [0]
    other_running, other_peak = [0], [0]
    governor = Governor(
        Budget(), ModelLimit(max_concurrent=8, requests_per_minute=None), {"script:x": ModelLimit(1, None)}
    )
    models = {"script:x": slow_model(running, peak), "script:y": slow_model(other_running, other_peak)}
    with override_models(models), wrap_models(governor.wrap):
        xs = [Agent(create_model("script:x", role="a")) for _ in range(3)]
        ys = [Agent(create_model("script:y", role="b")) for _ in range(3)]
    await asyncio.gather(*(a.run("hi") for a in xs + ys))
    assert (peak[0], other_peak[0]) == (1, 3)


async def _start_times(limiter: RateLimiter, requests: int) -> list[float]:
    """When each of `requests` concurrent calls got through, on the clock the limiter uses."""
    loop = asyncio.get_running_loop()
    started: list[float] = []

    async def call() -> None:
        async with limiter.slot():
            started.append(loop.time())

    await asyncio.gather(*(call() for _ in range(requests)))
    return sorted(started)


# A start is seen a moment after the limiter granted it; a stall of the process in that moment
# makes two starts look closer than they were. SLACK absorbs stalls up to 50 ms: the limiter's
# guarantee is checked, not the machine's speed (a slow machine only spreads the starts further).
SLACK = 0.05


@pytest.mark.parametrize("per_window", [1, 3])
async def test_never_more_than_n_requests_start_in_any_window(per_window: int) -> None:
    """What `requests_per_minute` promises: any window of the period holds at most N starts.
    (A bucket of N, aiolimiter's default, would let 2N - 1 start in one window.)"""
    window = 0.6
    limiter = RateLimiter(max_concurrent=10, per_minute=per_window, window_seconds=window)
    started = await _start_times(limiter, 2 * per_window + 1)
    assert len(started) == 2 * per_window + 1 == limiter.started
    # the (i+N)-th start is a whole window after the i-th: no window holds N + 1 of them
    closest = min(started[i + per_window] - started[i] for i in range(len(started) - per_window))
    assert closest >= window - SLACK


async def test_requests_start_evenly_spaced_not_in_a_burst() -> None:
    """One request per window/N: providers that enforce a per-minute limit over shorter periods
    (60 a minute as 1 a second) see no burst either."""
    window, per_window = 0.6, 3
    limiter = RateLimiter(max_concurrent=10, per_minute=per_window, window_seconds=window)
    started = await _start_times(limiter, 4)
    assert min(b - a for a, b in itertools.pairwise(started)) >= window / per_window - SLACK


async def test_ledger_attributes_usage_to_team_round_and_site() -> None:
    governor = Governor(Budget(), ModelLimit(4, None))
    with override_models({"script:x": slow_model([0], [0])}), wrap_models(governor.wrap):
        leader = Agent(create_model("script:x", role="leader of team 'a'"))
        judge = Agent(create_model("script:x", role="judgment"))
    with call_scope("a", 2):
        await leader.run("x")
        await judge.run("y")
    await judge.run("outside any round")
    assert governor.ledger.by_site("a", 2) == {
        "judgment": {"requests": 1, "tool_calls": 0, "input_tokens": 10, "output_tokens": 5},
        "leader of team 'a'": {"requests": 1, "tool_calls": 0, "input_tokens": 10, "output_tokens": 5},
    }
    assert sum(usage["requests"] for usage in governor.ledger.by_site("a", 2).values()) == 2
    assert [(e.team_id, e.round_number) for e in governor.ledger.entries] == [
        ("a", 2),
        ("a", 2),
        (None, None),
    ]
    assert len(governor.ledger.take_unsaved()) == 3
    assert governor.ledger.take_unsaved() == []


async def test_budget_stops_the_next_request() -> None:
    governor = Governor(Budget(max_total_tokens=30), ModelLimit(4, None))
    with override_models({"script:x": slow_model([0], [0])}), wrap_models(governor.wrap):
        agent = Agent(create_model("script:x", role="r"))
    await agent.run("1")
    await agent.run("2")
    with pytest.raises(BudgetExceeded) as info:
        await agent.run("3")
    assert str(info.value) == "budget max_total_tokens = 30 reached (30 spent)"
    assert governor.ledger.total.requests == 2


def test_budget_checks_each_limit() -> None:
    governor = Governor(Budget(max_requests=2, max_cost_usd=0.5), ModelLimit(1, None))
    assert governor.ledger.exceeded(governor.budget) is None
    governor.ledger.preload(RunUsage(requests=2))
    exceeded = governor.ledger.exceeded(governor.budget)
    assert exceeded is not None and exceeded.limit == "max_requests"


def test_cost_spent_before_a_resume_counts_towards_the_cost_budget() -> None:
    """A resume preloads the stored usage totals, cost included."""
    governor = Governor(Budget(max_cost_usd=0.5), ModelLimit(1, None))
    stored_totals: dict[str, object] = {"requests": 3, "input_tokens": 90, "output_tokens": 12, "cost": 0.6}
    governor.ledger.preload(usage_from_dict(stored_totals))
    exceeded = governor.ledger.exceeded(governor.budget)
    assert exceeded is not None and exceeded.limit == "max_cost_usd"
    assert str(exceeded) == "budget max_cost_usd = 0.5 reached (0.6 spent)"
    assert governor.ledger.total.requests == 3


async def test_requests_waiting_for_a_slot_are_refused_once_the_budget_is_spent() -> None:
    # five requests queue behind a concurrency cap of one; the first spends the whole budget
    governor = Governor(Budget(max_requests=1), ModelLimit(1, None))
    sent = [0]

    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent[0] += 1
        await asyncio.sleep(0)
        return ModelResponse(parts=[TextPart("ok")], usage=RequestUsage(input_tokens=1, output_tokens=1))

    with override_models({"script:x": FunctionModel(fn)}), wrap_models(governor.wrap):
        agents = [Agent(create_model("script:x", role="r")) for _ in range(5)]
    results = await asyncio.gather(*(a.run("go") for a in agents), return_exceptions=True)
    assert sent[0] == 1
    assert governor.ledger.total.requests == 1
    assert sum(isinstance(r, BudgetExceeded) for r in results) == 4
