"""Other processes read while an execution writes; locks are retried, data errors are not."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from mixseek.storage import AggregationStore, RetryPolicy, StoreBusyError
from mixseek.storage.retry import is_transient

from .support import record, run_python, unchecked_record

READ_WITH_STORE = """
import asyncio, json, sys
from mixseek.storage import AggregationStore

async def main():
    store = AggregationStore(sys.argv[1], read_only=sys.argv[2] == "ro")
    ranking = await store.get_leader_board_ranking("exec-1")
    store.close()
    print(json.dumps(ranking))

asyncio.run(main())
"""

# Plain DuckDB, no retry: succeeds only if no other process holds the file.
READ_WITH_DUCKDB = """
import duckdb, sys
conn = duckdb.connect(sys.argv[1], read_only=True)
print(conn.execute("SELECT count(*) FROM leader_board").fetchone()[0])
conn.close()
"""

HOLD_LOCK = """
import duckdb, sys, time
conn = duckdb.connect(sys.argv[1])
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.close()
"""


def ranking_in_subprocess(path: Path, mode: str) -> list[dict[str, object]]:
    result: list[dict[str, object]] = json.loads(run_python(READ_WITH_STORE, str(path), mode).stdout)
    return result


async def wait_until_closed(store: AggregationStore) -> None:
    for _ in range(200):
        if not store.is_open:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("store kept the file open")


async def test_another_process_reads_between_writes(db_path: Path) -> None:
    round1 = {"team_id": "team-a", "team_name": "Team team-a", "max_score": 40.0, "total_rounds": 1}
    async with AggregationStore(db_path) as store:
        await store.save_round(record("team-a", 1, 40.0))
        # Right after the write (the connection may still be open): the reader retries until it is free.
        assert ranking_in_subprocess(db_path, "ro") == [round1]

        await store.save_round(record("team-a", 2, 65.0))
        await wait_until_closed(store)
        # Once idle the file is free: a plain read-only open succeeds at the first try.
        assert run_python(READ_WITH_DUCKDB, str(db_path)).stdout.strip() == "2"
        assert ranking_in_subprocess(db_path, "ro") == [
            {"team_id": "team-a", "team_name": "Team team-a", "max_score": 65.0, "total_rounds": 2}
        ]

        await store.save_round(record("team-b", 1, 70.0))
        # A read-write store in another process works between writes too.
        assert ranking_in_subprocess(db_path, "rw") == [
            {"team_id": "team-b", "team_name": "Team team-b", "max_score": 70.0, "total_rounds": 1},
            {"team_id": "team-a", "team_name": "Team team-a", "max_score": 65.0, "total_rounds": 2},
        ]
        # And this process writes again afterwards.
        await store.save_round(record("team-b", 2, 71.0))
        assert [r["max_score"] for r in await store.get_leader_board_ranking("exec-1")] == [71.0, 65.0]


def hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "locked"
    return holder


async def test_locked_file_is_retried_without_blocking_the_loop(db_path: Path) -> None:
    store = AggregationStore(db_path, retry=RetryPolicy(attempts=30, base_delay=0.01, max_delay=0.05))
    await store.initialize()
    store.close()
    holder = hold_lock(db_path, 0.3)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticking = asyncio.create_task(ticker())
    start = time.monotonic()
    try:
        await store.save_round(record("team-a", 1, 55.0))
    finally:
        ticking.cancel()
        holder.wait(timeout=30)
    waited = time.monotonic() - start
    assert holder.returncode == 0
    assert waited >= 0.15  # the save waited for the other process ...
    assert ticks >= 10  # ... while the event loop kept running
    assert store.connections_opened == 2  # initialize(), then the save once the lock was gone
    assert [r["max_score"] for r in await store.get_leader_board_ranking("exec-1")] == [55.0]
    store.close()


async def test_read_is_retried_too(db_path: Path) -> None:
    async with AggregationStore(db_path) as store:
        await store.save_round(record("team-a", 1, 12.5))
    holder = hold_lock(db_path, 0.3)
    try:
        reader = AggregationStore(db_path, read_only=True, retry=RetryPolicy(attempts=30, max_delay=0.05))
        assert [r["max_score"] for r in await reader.get_leader_board_ranking("exec-1")] == [12.5]
        reader.close()
    finally:
        holder.wait(timeout=30)


async def test_lock_held_through_every_attempt_raises_busy(db_path: Path) -> None:
    store = AggregationStore(db_path, retry=RetryPolicy(attempts=3, base_delay=0.01, jitter=0))
    await store.initialize()
    store.close()
    holder = hold_lock(db_path, 5)
    try:
        with pytest.raises(
            StoreBusyError, match=r"stayed locked through 3 attempts: .*Could not set lock"
        ) as caught:
            await store.get_leader_board_ranking("exec-1")
        assert str(caught.value).startswith(f"{db_path}: ")
    finally:
        holder.kill()
        holder.wait(timeout=30)


async def test_data_errors_are_not_retried(db_path: Path) -> None:
    store = AggregationStore(db_path, retry=RetryPolicy(attempts=5, base_delay=2.0, jitter=0))
    await store.initialize()
    start = time.monotonic()
    with pytest.raises(duckdb.ConstraintException):
        await store.save_round(unchecked_record(evaluation_score=float("nan")))
    assert time.monotonic() - start < 1.0  # a single retry would have slept 2 s
    store.close()


async def test_concurrent_saves_from_many_tasks(store: AggregationStore) -> None:
    await asyncio.gather(
        *(store.save_round(record(f"team-{t}", r, float(10 * t + r))) for t in range(8) for r in range(1, 4))
    )
    ranking = await store.get_leader_board_ranking("exec-1")
    assert [(e["team_id"], e["max_score"], e["total_rounds"]) for e in ranking] == [
        (f"team-{t}", float(10 * t + 3), 3) for t in reversed(range(8))
    ]


def test_retry_policy_delays() -> None:
    policy = RetryPolicy(attempts=6, base_delay=0.01, max_delay=0.05, jitter=0)
    assert [policy.delay(i) for i in range(5)] == [0.01, 0.02, 0.04, 0.05, 0.05]
    jittered = RetryPolicy(base_delay=0.1, max_delay=1.0, jitter=0.5)
    assert all(0.05 <= jittered.delay(0) <= 0.1 for _ in range(50))
    with pytest.raises(ValueError, match="attempts must be >= 1, got 0"):
        RetryPolicy(attempts=0)


def test_transient_errors() -> None:
    lock = duckdb.IOException('IO Error: Could not set lock on file "x.db": Conflicting lock is held')
    assert is_transient(lock)
    assert is_transient(duckdb.TransactionException("TransactionContext Error: Catalog write-write conflict"))
    assert not is_transient(duckdb.IOException("IO Error: No space left on device"))
    assert not is_transient(duckdb.ConstraintException("Constraint Error: CHECK constraint failed"))
    assert not is_transient(duckdb.TransactionException("cannot start a transaction within a transaction"))
    assert not is_transient(ValueError("Could not set lock"))


def test_importing_storage_loads_no_provider_sdk() -> None:
    code = (
        "import sys, mixseek.storage\n"
        "roots = {'pydantic_ai', 'openai', 'anthropic', 'google', 'groq', 'httpx', 'llama_cpp'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in roots))"
    )
    assert run_python(code).stdout.strip() == "[]"
