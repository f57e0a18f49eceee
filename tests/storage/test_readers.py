"""Read-only stores attach their file to a kept in-memory DuckDB instance (`storage._readers`):
each read still opens and closes the file, sees every write made since, and holds nothing after."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from mixseek.storage import AggregationStore, RetryPolicy

from .support import record, run_python

SAVE_ROUND = """
import asyncio, sys
from datetime import UTC, datetime
from mixseek.storage import AggregationStore, RoundRecord

async def main():
    team, score = sys.argv[2], float(sys.argv[3])
    round_ = RoundRecord(
        execution_id="exec-1", team_id=team, team_name=f"Team {team}", round_number=1,
        submission_content="text", evaluation_score=score, evaluation_feedback="ok",
        started_at=datetime(2025, 1, 1, tzinfo=UTC), ended_at=datetime(2025, 1, 1, 0, 5, tzinfo=UTC),
    )
    async with AggregationStore(sys.argv[1]) as store:
        await store.save_round(round_)

asyncio.run(main())
"""

# Plain DuckDB, read-write, no retry: succeeds only if no process holds the file.
WRITE_WITH_DUCKDB = """
import duckdb, sys
conn = duckdb.connect(sys.argv[1])
conn.execute("UPDATE leader_board SET evaluation_score = 99.0 WHERE team_id = 'team-a'")
conn.close()
"""


async def scores(db: Path, **options: Any) -> dict[str, float]:
    """Each team's stored score in round 1, read by a read-only store."""
    async with AggregationStore(db, read_only=True, **options) as reader:
        return {row.team_id: row.evaluation_score for row in await reader.get_leader_board("exec-1")}


def open_handles(path: Path) -> list[str]:
    """The files this process holds open whose path starts with `path` (the database, its WAL)."""
    fds = Path("/proc/self/fd")
    found = []
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
        if target.startswith(str(path)):
            found.append(target)
    return found


@pytest.fixture
def counted_connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every `duckdb.connect` call from now on (each builds or joins a DuckDB instance)."""
    calls: list[tuple[Any, ...]] = []
    connect: Callable[..., duckdb.DuckDBPyConnection] = duckdb.connect

    def counting(*args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        calls.append(args)
        return connect(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting)
    return calls


async def test_read_only_reads_open_the_file_without_building_a_duckdb_instance_each(
    db_path: Path, counted_connects: list[tuple[Any, ...]]
) -> None:
    async with AggregationStore(db_path) as store:
        await store.save_round(record("team-a", 1, 40.0))
    counted_connects.clear()
    for _ in range(5):
        assert await scores(db_path) == {"team-a": 40.0}
    # at most one instance built (none if an earlier test left one idle), none per read
    assert len(counted_connects) <= 1
    assert all(str(db_path) not in map(str, call) for call in counted_connects)


async def test_each_read_sees_what_another_process_wrote_since_the_last(db_path: Path) -> None:
    run_python(SAVE_ROUND, str(db_path), "team-a", "40")
    assert await scores(db_path) == {"team-a": 40.0}
    run_python(SAVE_ROUND, str(db_path), "team-b", "70")
    assert await scores(db_path) == {"team-b": 70.0, "team-a": 40.0}


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="lists open files through /proc")
async def test_a_read_leaves_the_file_closed_and_free_for_a_writer(db_path: Path) -> None:
    async with AggregationStore(db_path) as store:
        await store.save_round(record("team-a", 1, 40.0))
    assert await scores(db_path) == {"team-a": 40.0}
    assert open_handles(db_path) == []
    run_python(WRITE_WITH_DUCKDB, str(db_path))  # no lock left behind: a plain open writes at once
    assert await scores(db_path) == {"team-a": 99.0}


async def test_concurrent_reads_of_one_file_each_succeed(db_path: Path) -> None:
    async with AggregationStore(db_path) as store:
        await store.save_round(record("team-a", 1, 40.0))
    # a dashboard's concurrent requests: each read attaches the file on an instance of its own
    results = await asyncio.gather(*(scores(db_path, retry=RetryPolicy(attempts=1)) for _ in range(8)))
    assert results == [{"team-a": 40.0}] * 8


async def test_a_reader_and_a_writer_in_one_process_take_turns(db_path: Path) -> None:
    """A process that writes and reads one file (the dashboard beside an execution it runs, a
    benchmark): the file is open in one mode at a time, and each side waits for the other."""
    async with AggregationStore(db_path, idle_close_seconds=0.3) as writer:
        await writer.save_round(record("team-a", 1, 40.0))
        assert writer.is_open  # kept open a while after the write
        assert await scores(db_path) == {"team-a": 40.0}  # the read waits until it is closed

        held = AggregationStore(db_path, read_only=True, idle_close_seconds=0.3)
        assert [row.evaluation_score for row in await held.get_leader_board("exec-1")] == [40.0]
        assert held.is_open  # kept open by the reader now
        await writer.save_round(record("team-b", 1, 70.0))  # the write waits for the reader
        await held.aclose()
    assert await scores(db_path) == {"team-b": 70.0, "team-a": 40.0}
