"""The stored side of `mixseek bench`: which executions answer each (task, repeat) of a bench. A bench has no
results of its own (they are its executions'); these rows let a resume run what is missing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

import mixseek.storage._rows as _rows
from mixseek.storage.models import ExecutionStatus

if TYPE_CHECKING:
    from mixseek.storage.aggregation_store import AggregationStore

Conn = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class BenchRecord:
    """A bench: the task file it ran (path and SHA-256), its task count and repeat count."""

    bench_id: str
    tasks_file: str
    tasks_sha256: str
    task_count: int
    repeats: int
    created_at: datetime


@dataclass(frozen=True)
class BenchRun:
    """One (task, repeat) of a bench, its execution and the status the bench last saw."""

    task_id: str
    repeat_number: int
    execution_id: str
    status: ExecutionStatus


class BenchStore:
    """Bench rows in a workspace's store, written through the store's own write path."""

    def __init__(self, store: AggregationStore) -> None:
        self._store = store

    async def create_bench(
        self, bench_id: str, tasks_file: str, tasks_sha256: str, task_count: int, repeats: int
    ) -> None:
        def work(conn: Conn) -> None:
            conn.execute(
                "INSERT INTO benches (bench_id, tasks_file, tasks_sha256, task_count, repeats, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [bench_id, tasks_file, tasks_sha256, task_count, repeats, _rows.now()],
            )

        await self._store._call(work, write=True)

    async def set_repeats(self, bench_id: str, repeats: int) -> None:
        def work(conn: Conn) -> None:
            conn.execute("UPDATE benches SET repeats = ? WHERE bench_id = ?", [repeats, bench_id])

        await self._store._call(work, write=True)

    async def get_bench(self, bench_id: str) -> BenchRecord | None:
        query = (
            "SELECT bench_id, tasks_file, tasks_sha256, task_count, repeats, created_at "
            "FROM benches WHERE bench_id = ?"
        )
        rows = await self._store._call(lambda conn: _rows.dicts(conn, query, [bench_id]), write=False)
        return BenchRecord(**rows[0]) if rows else None

    async def record_run(
        self, bench_id: str, task_id: str, repeat_number: int, execution_id: str, status: ExecutionStatus
    ) -> None:
        """Say which execution answers (task, repeat), or how it ended (the row is replaced)."""

        def work(conn: Conn) -> None:
            key = [bench_id, task_id, repeat_number]
            updated = conn.execute(
                "UPDATE bench_runs SET execution_id = ?, status = ?, updated_at = ? "
                "WHERE bench_id = ? AND task_id = ? AND repeat_number = ? RETURNING task_id",
                [execution_id, status, _rows.now(), *key],
            ).fetchall()
            if not updated:
                conn.execute(
                    "INSERT INTO bench_runs (bench_id, task_id, repeat_number, execution_id, status, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [*key, execution_id, status, _rows.now()],
                )

        await self._store._call(work, write=True)

    async def team_costs(self, execution_id: str) -> dict[str, tuple[float | None, float | None]]:
        """Each team's (model calls' cost, None if a price is unknown; its rounds' seconds) in one run."""
        query = (
            "SELECT team_id, (SELECT CASE WHEN count(*) = count(cost) THEN sum(cost) END FROM model_calls m "
            "WHERE m.execution_id = r.execution_id AND m.team_id = r.team_id) AS cost, "
            "sum(epoch(ended_at) - epoch(started_at)) AS seconds FROM round_status r "
            "WHERE execution_id = ? GROUP BY execution_id, team_id"
        )
        rows = await self._store._call(lambda conn: _rows.dicts(conn, query, [execution_id]), write=False)
        return {row["team_id"]: (row["cost"], row["seconds"]) for row in rows}

    async def get_runs(self, bench_id: str) -> list[BenchRun]:
        """Every run of the bench recorded so far, by task id then repeat."""
        query = (
            "SELECT task_id, repeat_number, execution_id, status FROM bench_runs "
            "WHERE bench_id = ? ORDER BY task_id, repeat_number"
        )
        rows = await self._store._call(lambda conn: _rows.dicts(conn, query, [bench_id]), write=False)
        return [BenchRun(**row) for row in rows]
