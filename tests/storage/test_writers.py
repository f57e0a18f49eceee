"""Read-write stores attach their file to a kept in-memory DuckDB instance (`storage._writers`):
each open after an idle close costs an attach, not a new DuckDB instance, and the file is still
released between opens for other processes."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from mixseek.storage import AggregationStore

from .support import record, run_python

# Plain DuckDB, read-write, no retry: succeeds only if no process holds the file.
WRITE_WITH_DUCKDB = """
import duckdb, sys
conn = duckdb.connect(sys.argv[1])
conn.execute("UPDATE leader_board SET evaluation_score = 99.0 WHERE team_id = 'team-a'")
conn.close()
"""


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


def open_handles(path: Path) -> list[str]:
    """The files this process holds open whose path starts with `path` (the database, its WAL)."""
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
        if target.startswith(str(path)):
            found.append(target)
    return found


async def test_each_open_of_a_writer_attaches_the_file_without_building_a_duckdb_instance(
    db_path: Path, counted_connects: list[tuple[Any, ...]]
) -> None:
    store = AggregationStore(db_path, idle_close_seconds=0)  # closed after every operation
    for round_number in range(1, 6):
        await store.save_round(record("team-a", round_number, 40.0 + round_number))
    await store.aclose()
    assert store.connections_opened >= 5
    # at most one instance built (none if an earlier test left one idle), none per open
    assert len(counted_connects) <= 1
    assert all(str(db_path) not in map(str, call) for call in counted_connects)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="lists open files through /proc")
async def test_between_operations_the_file_is_closed_and_free_for_another_process(db_path: Path) -> None:
    store = AggregationStore(db_path, idle_close_seconds=0)
    await store.save_round(record("team-a", 1, 40.0))
    assert open_handles(db_path) == []
    run_python(WRITE_WITH_DUCKDB, str(db_path))  # no lock left behind: a plain open writes at once
    assert [row.evaluation_score for row in await store.get_leader_board("exec-1")] == [99.0]
    await store.aclose()


async def test_two_writers_in_one_process_share_the_file(db_path: Path) -> None:
    """Two executions of one workspace in one process (the Python API): both write at once."""
    first = AggregationStore(db_path, idle_close_seconds=0.2)
    second = AggregationStore(db_path, idle_close_seconds=0.2)
    await asyncio.gather(
        *(first.save_round(record("team-a", r, 10.0 * r, execution_id="exec-1")) for r in (1, 2, 3)),
        *(second.save_round(record("team-b", r, 20.0 * r, execution_id="exec-2")) for r in (1, 2, 3)),
    )
    await first.aclose()
    assert [row.evaluation_score for row in await second.get_leader_board("exec-1")] == [10.0, 20.0, 30.0]
    await second.aclose()
    async with AggregationStore(db_path, read_only=True) as reader:
        assert [row.evaluation_score for row in await reader.get_leader_board("exec-2")] == [20.0, 40.0, 60.0]
