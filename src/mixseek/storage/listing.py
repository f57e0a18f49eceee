"""Listing stored executions' overviews without loading one execution's view (`read_model`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import duckdb
from pydantic import ValidationError

import mixseek.storage._rows as rows
import mixseek.storage._sql as sql
from mixseek.storage.models import ExecutionRecord
from mixseek.storage.overview import ExecutionOverview, StoredSummary

Conn = duckdb.DuckDBPyConnection
T = TypeVar("T")


def in_snapshot(conn: Conn, read: Callable[[Conn], T]) -> T:
    """Run `read` in a read transaction: every query it makes sees the same committed state."""
    conn.begin()
    try:
        return read(conn)
    finally:
        conn.rollback()


def stored_summary(record: ExecutionRecord) -> StoredSummary | None:
    """The summary, if there is one this version reads and the execution was not resumed since."""
    if record.summary is None or record.status == "running":
        return None
    try:
        return StoredSummary.model_validate(record.summary)
    except ValidationError:
        return None


def duration_seconds(record: ExecutionRecord, summary: StoredSummary | None) -> float:
    """The time its processes ran the execution, over `exec` and each resume."""
    if summary is not None:
        return summary.duration_seconds
    end = record.ended_at if record.ended_at is not None else rows.now()
    since, before = record.active_since or record.started_at, record.active_before_seconds or 0.0
    return round(before + max((end - since).total_seconds(), 0.0), 3)


def _team_count(record: ExecutionRecord, summary: StoredSummary | None, started: int) -> int:
    """The teams of the config snapshot; without one, the summary's or those that started a round."""
    teams = record.config.get("teams")
    if isinstance(teams, Mapping) and teams:
        return len(teams)
    return len(summary.teams) if summary is not None and summary.teams else started


@dataclass(frozen=True)
class _Live:
    """What the rows so far say of an execution without a trusted summary."""

    leader: tuple[str, float, str] | None = None  # team id, best score, team name
    last_round: int = 0
    tokens: int = 0
    cost: float | None = None
    teams_started: int = 0


def _overview(record: ExecutionRecord, summary: StoredSummary | None, live: _Live) -> ExecutionOverview:
    """A listing line: from the trusted `summary` if there is one, else from the rows so far."""
    best, rounds_run, tokens, cost = live.leader, live.last_round, live.tokens, live.cost
    if summary is not None:
        best = (summary.best.team_id, summary.best.score, summary.best.team_name) if summary.best else None
        rounds_run, tokens, cost = summary.rounds_run, summary.usage.total_tokens, summary.usage.cost
    best_team, best_score, best_team_name = best or (None, None, None)
    return ExecutionOverview(
        **record.model_dump(include={"execution_id", "status", "user_prompt", "started_at"}),
        duration_seconds=duration_seconds(record, summary),
        best_team=best_team,
        best_score=best_score,
        rounds_run=rounds_run,
        total_tokens=tokens,
        best_team_name=best_team_name,
        team_count=_team_count(record, summary, live.teams_started),
        cost=cost,
    )


def list_overviews(conn: Conn, limit: int | None, status: str | None = None) -> list[ExecutionOverview]:
    """The `limit` latest executions of `status`, newest first (one query per table for the unsummarised)."""

    def read(conn: Conn) -> list[ExecutionOverview]:
        query = f"{sql.EXECUTIONS_WITH_OWNER} ORDER BY e.started_at DESC, e.execution_id DESC LIMIT ?"
        found = [rows.execution(row) for row in rows.dicts(conn, query, [limit if status is None else None])]
        # the status as read (a running one whose process is gone is interrupted), not as stored
        records = [r for r in found if status in (None, r.status)][:limit]
        summaries = {r.execution_id: stored_summary(r) for r in records}
        ids = [eid for eid, summary in summaries.items() if summary is None]
        live: dict[str, dict[str, Any]] = {eid: {} for eid in ids}
        if ids:
            for eid, team_id, score, name in conn.execute(sql.LISTED_LEADERS, [ids]).fetchall():
                live[eid]["leader"] = (team_id, float(score), name)
            for eid, n in conn.execute(sql.LISTED_LAST_ROUNDS, [ids]).fetchall():
                live[eid]["last_round"] = int(n)
            for eid, n, cost in conn.execute(sql.LISTED_TOKENS, [ids]).fetchall():
                live[eid].update(tokens=int(n), cost=float(cost) if cost is not None else None)
            for eid, n in conn.execute(sql.LISTED_TEAM_COUNTS, [ids]).fetchall():
                live[eid]["teams_started"] = int(n)
        return [
            _overview(r, summaries[r.execution_id], _Live(**live.get(r.execution_id, {}))) for r in records
        ]

    return in_snapshot(conn, read)
