"""Writes that arrive together share transactions, yet each caller gets its own outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from mixseek.storage import AggregationStore, RecordNotFoundError
from mixseek.storage._round_writes import JUDGMENT, MODEL_CALLS, SAVE_ROUND, Paid
from mixseek.storage._write_queue import _groups, _Request
from mixseek.storage.models import RoundDecision, RoundKey

from .support import count_rows, record, unchecked_record


class TransactionCounter:
    """Counts the store's write transactions (wraps its connector's `run`)."""

    def __init__(self, store: AggregationStore) -> None:
        self.writes = 0
        connector = store._connector
        run = connector.run

        def counted(work: Callable[[Any], Any], *, transaction: bool, checkpoint: bool = False) -> Any:
            self.writes += transaction
            return run(work, transaction=transaction, checkpoint=checkpoint)

        connector.run = counted  # type: ignore[method-assign]


async def test_concurrent_saves_share_transactions_and_all_land(store: AggregationStore) -> None:
    await store.create_execution("exec-1", "task", {})
    counter = TransactionCounter(store)
    teams = [f"team-{i:02d}" for i in range(40)]

    await asyncio.gather(*(store.save_round(record(t, 1, float(i))) for i, t in enumerate(teams)))

    assert counter.writes < len(teams) / 4
    ranking = await store.get_leader_board_ranking("exec-1")
    assert [entry["team_id"] for entry in ranking] == teams[::-1]
    assert [entry["max_score"] for entry in ranking] == [float(i) for i in range(39, -1, -1)]
    await store.aclose()
    assert count_rows(store.db_path, "round_history") == 40


async def test_a_bad_write_fails_alone_and_the_rest_commit(store: AggregationStore) -> None:
    await store.create_execution("exec-1", "task", {})
    await store.save_round(record("team-a", 1, 10.0))

    results = await asyncio.gather(
        store.save_round(record("team-b", 1, 20.0)),
        store.create_execution("exec-1", "again", {}),  # primary key taken: a DuckDB error
        store.update_judgment(
            RoundKey("exec-1", "team-z", 1),
            RoundDecision(should_continue=True, reason="judgment", reasoning="no such round", confidence=0.5),
        ),
        store.update_judgment(
            RoundKey("exec-1", "team-a", 1),
            RoundDecision(should_continue=False, reason="judgment", reasoning="done", confidence=0.9),
        ),
        store.save_round(unchecked_record(team_id="team-c", evaluation_score=float("nan"))),  # CHECK fails
        store.save_round(record("team-d", 1, 40.0)),
        return_exceptions=True,
    )

    assert results[0] is None and results[3] is None and results[5] is None
    assert isinstance(results[1], duckdb.ConstraintException)
    assert isinstance(results[2], RecordNotFoundError)
    assert "no round 1 of team 'team-z'" in str(results[2])
    assert isinstance(results[4], duckdb.ConstraintException)
    ranking = await store.get_leader_board_ranking("exec-1")
    assert [(e["team_id"], e["max_score"]) for e in ranking] == [
        ("team-d", 40.0),
        ("team-b", 20.0),
        ("team-a", 10.0),
    ]
    statuses = {s.team_id: s for s in await store.get_round_statuses("exec-1")}
    assert (statuses["team-a"].should_continue, statuses["team-a"].judgment_reasoning) == (False, "done")
    assert statuses["team-a"].exit_reason == "judgment"
    execution = await store.get_execution("exec-1")
    assert execution is not None and execution.user_prompt == "task"


async def test_writes_land_in_the_order_they_were_made(store: AggregationStore) -> None:
    """A round marked started and then saved, without waiting in between, ends completed;
    two saves of one round in a batch leave the second."""
    await store.create_execution("exec-1", "task", {})

    await asyncio.gather(
        store.mark_round_started(RoundKey("exec-1", "team-a", 1)),
        store.save_round(record("team-a", 1, 30.0)),
        store.save_round(record("team-a", 1, 35.0, submission_content="second try")),
        store.update_judgment(
            RoundKey("exec-1", "team-a", 1),
            RoundDecision(should_continue=True, reason="judgment", reasoning="again", confidence=0.4),
        ),
    )

    [status] = await store.get_round_statuses("exec-1")
    assert (status.status, status.should_continue, status.judgment_reasoning) == ("completed", True, "again")
    [row] = await store.get_leader_board("exec-1")
    assert (row.evaluation_score, row.submission_content) == (35.0, "second try")
    await store.aclose()
    assert count_rows(store.db_path, "round_history") == 1


async def test_read_only_store_refuses_writes_before_queueing(db_path: Path) -> None:
    async with AggregationStore(db_path) as writer:
        await writer.create_execution("exec-1", "task", {})
    reader = AggregationStore(db_path, read_only=True)
    with pytest.raises(Exception, match="store is read-only"):
        await reader.save_round(record())
    assert count_rows(db_path, "leader_board") == 0


async def test_the_store_works_across_event_loops(db_path: Path) -> None:
    """The CLI and tests run one store under several `asyncio.run` calls."""
    store = AggregationStore(db_path)
    await store.create_execution("exec-1", "task", {})

    def save_in_new_loop(team_id: str, score: float) -> None:
        asyncio.run(store.save_round(record(team_id, 1, score)))

    await asyncio.to_thread(save_in_new_loop, "team-a", 40.0)
    await asyncio.to_thread(save_in_new_loop, "team-b", 50.0)
    await store.save_round(record("team-c", 1, 60.0))
    assert [e["team_id"] for e in await store.get_leader_board_ranking("exec-1")] == [
        "team-c",
        "team-b",
        "team-a",
    ]
    await store.aclose()


async def test_batch_grouping_keeps_order_and_lets_usage_rows_join_up() -> None:
    """Saves separated only by usage rows share one statement; a repeated round starts a new one."""
    loop = asyncio.get_running_loop()
    a1, b1 = Paid(record("team-a", 1)), Paid(record("team-b", 1))
    judgment = Paid((RoundKey("exec-1", "team-a", 1), RoundDecision(should_continue=True, reason="judgment")))
    batch = [
        _Request(kind, payload, loop.create_future())
        for kind, payload in (
            (SAVE_ROUND, a1),
            (MODEL_CALLS, [["row"]]),
            (SAVE_ROUND, b1),
            (MODEL_CALLS, [["row"]]),
            (SAVE_ROUND, a1),
            (JUDGMENT, judgment),
            (MODEL_CALLS, [["row"]]),
        )
    ]

    assert [(kind.name, members) for kind, members in _groups(batch)] == [
        ("save_round", [0, 2]),
        ("record_model_calls", [1, 3, 6]),
        ("save_round", [4]),
        ("update_judgment", [5]),
    ]
