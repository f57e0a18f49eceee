"""`Mixseek.iter`: the typed events of an execution, in order, and the result they end with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_world import scripted_mixseek

from e2e.scripted import World
from mixseek import (
    Event,
    ExecutionFinished,
    ExecutionStarted,
    ExecutionStopping,
    MixseekError,
    RoundStarted,
    TeamDecided,
    TeamRoundFinished,
    TeamRoundStarted,
    UsageUpdated,
    parse_event,
)
from mixseek.orchestrator.events import JsonlFileSink
from mixseek.storage.aggregation_store import AggregationStore

ROUND = [TeamRoundStarted, TeamRoundStarted, TeamRoundFinished, TeamRoundFinished, TeamDecided, TeamDecided]


async def test_events_arrive_typed_in_order_and_end_with_the_result() -> None:
    mx = scripted_mixseek(World())
    events: list[Event] = []
    async with mx.iter("課題") as execution:
        async for event in execution:
            events.append(event)
    result = execution.result

    assert [type(e) for e in events] == [
        ExecutionStarted,
        RoundStarted,
        *ROUND,
        UsageUpdated,
        RoundStarted,
        *ROUND,
        UsageUpdated,
        ExecutionStopping,
        ExecutionFinished,
    ]
    assert {e.execution_id for e in events} == {execution.execution_id} == {result.execution_id}
    started = events[0]
    assert isinstance(started, ExecutionStarted)
    assert (started.teams, started.max_rounds) == (["alpha", "beta"], 2)
    assert [e.round_number for e in events if isinstance(e, RoundStarted)] == [1, 2]

    scores = {(e.team_id, e.round_number): e.score for e in events if isinstance(e, TeamRoundFinished)}
    assert scores == {("alpha", 1): 60.0, ("beta", 1): 70.0, ("alpha", 2): 75.0, ("beta", 2): 72.0}
    assert all(e.status == "completed" and e.tokens > 0 for e in events if isinstance(e, TeamRoundFinished))

    decisions = {
        (e.team_id, e.round_number): (e.should_continue, e.reason)
        for e in events
        if isinstance(e, TeamDecided)
    }
    assert decisions == {
        ("alpha", 1): (True, "judgment"),
        ("beta", 1): (True, "judgment"),
        ("alpha", 2): (False, "max_rounds"),
        ("beta", 2): (False, "max_rounds"),
    }
    judged = [e for e in events if isinstance(e, TeamDecided) and e.reason == "judgment"]
    assert all(e.confidence == 0.8 and e.reasoning for e in judged)

    usage = [e for e in events if isinstance(e, UsageUpdated)]
    assert [u.round_number for u in usage] == [1, 2]
    assert 0 < usage[0].usage.requests < usage[1].usage.requests == result.usage.requests
    assert usage[1].usage.total_tokens == result.usage.total_tokens

    finished = events[-1]
    assert isinstance(finished, ExecutionFinished)
    assert (finished.status, finished.best_team, finished.best_score) == ("completed", "alpha", 75.0)
    assert result.winner is not None
    assert (result.winner.team_id, result.winner.round_number, result.winner.score) == ("alpha", 2, 75.0)
    assert [(r.team_id, r.max_score, r.total_rounds) for r in result.leaderboard] == [
        ("alpha", 75.0, 2),
        ("beta", 72.0, 2),
    ]


def test_events_round_trip_through_the_jsonl_log(tmp_path: Path) -> None:
    """The JSONL log keeps its line format, and a line parses back into the same typed event."""
    finished = TeamRoundFinished(
        execution_id="e1",
        team_id="alpha",
        round_number=2,
        status="completed",
        score=80.0,
        tokens=9,
        elapsed=1.5,
    )
    started = ExecutionStarted(execution_id="e1", teams=["alpha"], max_rounds=3)
    sink = JsonlFileSink(tmp_path / "e1.jsonl")
    sink(started)
    sink(finished)
    lines = [json.loads(line) for line in (tmp_path / "e1.jsonl").read_text().splitlines()]
    assert list(lines[1]) == [
        "at",
        "kind",
        "execution_id",
        "team_id",
        "round_number",
        "status",
        "score",
        "error",
        "tokens",
        "elapsed",
    ]
    assert lines[0]["team_id"] is None and lines[0]["round_number"] is None
    assert [parse_event(line) for line in lines] == [started, finished]


async def test_leaving_the_block_early_interrupts_and_resume_finishes(tmp_path: Path) -> None:
    mx = scripted_mixseek(World(), workspace=tmp_path / "ws")
    async with mx.iter("課題") as execution:
        async for event in execution:
            if isinstance(event, TeamRoundFinished):
                break
    with pytest.raises(MixseekError, match="stopped before it finished"):
        _ = execution.result
    record = await AggregationStore(tmp_path / "ws" / "mixseek.db").get_execution(execution.execution_id)
    assert record is not None and record.status == "interrupted"

    result = await mx.resume(execution.execution_id)
    assert (result.execution_id, result.status) == (execution.execution_id, "completed")
    assert [(r.team_id, r.max_score) for r in result.leaderboard] == [("alpha", 75.0), ("beta", 72.0)]


async def test_failed_teams_are_an_outcome_and_a_failed_execution_an_error(tmp_path: Path) -> None:
    mx = scripted_mixseek(World(failing_teams={"alpha", "beta"}), workspace=tmp_path / "ws")
    events: list[Event] = []
    async with mx.iter("課題", execution_id="x") as execution:
        async for event in execution:
            events.append(event)
    assert execution.result.status == "failed"
    assert [e.status for e in events if isinstance(e, TeamRoundFinished)] == ["failed", "failed"]

    with pytest.raises(MixseekError, match=r"execution_id: 'x' exists already in .*mixseek\.db"):
        await mx.run("課題", execution_id="x")
    with pytest.raises(MixseekError, match="no execution 'nope'"):  # raised by the iteration
        async with mx.iter(resume="nope") as resumed:
            async for _ in resumed:
                pass
    record = await AggregationStore(tmp_path / "ws" / "mixseek.db").get_execution("x")
    assert record is not None and record.status == "failed"


async def test_resume_without_a_workspace_is_refused() -> None:
    with pytest.raises(MixseekError, match="resume: needs a workspace"):
        await scripted_mixseek(World()).resume("x")
