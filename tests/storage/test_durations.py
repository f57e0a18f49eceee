"""An execution's duration: the time its processes ran it, summed over `exec` and each resume.

The store's clock is set by the test (`_rows.now`), so every figure is exact: the time between an
interruption and the resume that continues it never counts, and a running execution's duration
is the time so far.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

import mixseek.storage._rows as rows
from mixseek.storage import AggregationStore
from mixseek.storage.lease import ExecutionOwner
from mixseek.storage.schema import MIGRATIONS, migrate

T0 = datetime(2030, 1, 1, 19, 46, 42, tzinfo=UTC)


class Clock:
    """The store's `now`, moved on by the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = T0
        monkeypatch.setattr(rows, "now", lambda: self.now)

    def at(self, seconds: float) -> None:
        self.now = T0 + timedelta(seconds=seconds)


def dead_owner() -> ExecutionOwner:
    """An owner whose process has ended (a `kill -9`)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return ExecutionOwner(child.pid, ExecutionOwner.this_process().host, "dead", None)


async def durations(store: AggregationStore, execution_id: str) -> tuple[float, float]:
    """The duration as `runs show` (the view) and `runs list` (the overview) give it."""
    view = await store.get_execution_view(execution_id)
    assert view is not None
    (overview,) = [o for o in await store.list_execution_overviews() if o.execution_id == execution_id]
    return view.duration_seconds, overview.duration_seconds


async def test_duration_sums_the_active_time_of_each_process(
    store: AggregationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    first = ExecutionOwner.this_process()
    await store.create_execution("e", "p", {}, owner=first)
    clock.at(20)
    assert await durations(store, "e") == (20.0, 20.0)  # running: the time so far
    clock.at(30)
    await store.finish_execution("e", "interrupted", None, owner=first)  # Ctrl-C
    clock.at(90)  # a minute passes before the resume
    assert await durations(store, "e") == (30.0, 30.0)

    second = ExecutionOwner.this_process()
    assert await store.claim_execution("e", second) == 30.0
    clock.at(100)
    assert await durations(store, "e") == (40.0, 40.0)  # 30 s, then 10 s of this process
    clock.at(109)
    await store.finish_execution("e", "completed", None, owner=second)
    clock.at(500)
    assert await durations(store, "e") == (49.0, 49.0)  # from 19:46:42 to 19:48:21, less the minute
    record = await store.get_execution("e")
    assert record is not None and (record.started_at, record.ended_at) == (T0, T0 + timedelta(seconds=109))


async def test_a_killed_process_counts_up_to_its_last_sign_of_life(
    store: AggregationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    await store.create_execution("e", "p", {}, owner=dead_owner())  # its heartbeat: T0
    clock.at(12)
    await store.record_model_calls("e", [{"site": "judgment", "model": "m"}])  # a sign of life at 12 s
    clock.at(300)
    assert await durations(store, "e") == (12.0, 12.0)
    assert await store.claim_execution("e", ExecutionOwner.this_process()) == 12.0
    clock.at(315)
    assert await durations(store, "e") == (27.0, 27.0)


async def test_a_summary_gives_the_figure_of_a_finished_execution(
    store: AggregationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the last process wrote as it ended is what every reader shows (`exec` printed it)."""
    clock = Clock(monkeypatch)
    me = ExecutionOwner.this_process()
    await store.create_execution("e", "p", {}, owner=me)
    clock.at(10)
    await store.finish_execution(
        "e", "interrupted", {"stop_reason": "interrupted", "duration_seconds": 9.9}, owner=me
    )
    assert await durations(store, "e") == (9.9, 9.9)
    assert await store.claim_execution("e", ExecutionOwner.this_process()) == 9.9


async def test_an_execution_stored_before_version_7_keeps_its_duration(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    assert migrate(conn, str(db_path), MIGRATIONS[:6]) == 6
    summary = {"stop_reason": "interrupted", "stop_detail": "interrupted", "duration_seconds": 49.0}
    conn.execute(
        "INSERT INTO executions (execution_id, user_prompt, status, started_at, ended_at, summary) "
        "VALUES ('summed', 'p', 'interrupted', ?, ?, ?), ('killed', 'p', 'running', ?, NULL, NULL)",
        [T0, T0 + timedelta(seconds=99), json.dumps(summary), T0],
    )
    conn.execute(
        "INSERT INTO model_calls (execution_id, site, model, created_at) VALUES ('killed', 'leader', 'm', ?)",
        [T0 + timedelta(seconds=7)],
    )
    conn.close()
    clock = Clock(monkeypatch)
    clock.at(1000)
    async with AggregationStore(db_path) as store:
        assert await durations(store, "summed") == (49.0, 49.0)  # the figure it stored
        assert await durations(store, "killed") == (7.0, 7.0)  # from its start to its last sign of life
        # a resume goes on from there
        assert await store.claim_execution("summed", ExecutionOwner.this_process()) == 49.0
        clock.at(1010)
        assert await durations(store, "summed") == (59.0, 59.0)
