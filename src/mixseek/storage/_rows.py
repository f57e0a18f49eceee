"""Query rows as the store's records, shared by `AggregationStore` and the read model."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import duckdb
from pydantic import ConfigDict, TypeAdapter

import mixseek.storage._sql as sql
from mixseek.storage.lease import owner_alive
from mixseek.storage.models import ExecutionLease, ExecutionRecord, LeaderBoardRow, RoundStatusRecord
from mixseek.storage.overview import RankingEntry

Conn = duckdb.DuckDBPyConnection

# the adapters below build their validators on first use: a reader listing executions uses neither
_ON_FIRST_USE = ConfigDict(defer_build=True)


def now() -> datetime:
    return datetime.now(UTC)


def load(value: str | None) -> Any:
    """A JSON column's value (None stays None)."""
    return None if value is None else json.loads(value)


def dicts(conn: Conn, query: str, params: Sequence[object]) -> list[dict[str, Any]]:
    cursor = conn.execute(query, list(params))
    names = [column[0] for column in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def execution(row: Mapping[str, Any]) -> ExecutionRecord:
    """A row of `sql.EXECUTIONS_WITH_OWNER`: running without a living owner reads as interrupted."""
    owner = None
    if row["pid"] is not None:
        lease = {k: row[k] for k in ("pid", "host", "process_started", "command_sha256", "acquired_at")}
        alive = owner_alive(row["pid"], row["host"], row["process_started"], row["heartbeat_at"], now())
        owner = ExecutionLease(**lease, heartbeat_at=row["heartbeat_at"], alive=alive)
    status, ended = row["status"], row["ended_at"]
    if status == "running" and (owner is None or not owner.alive):
        status = "interrupted"
        signs = [owner.heartbeat_at if owner else None, row["last_call_at"], row["started_at"]]
        ended = max(t for t in signs if t is not None)
    kept = {k: row[k] for k in ("execution_id", "user_prompt", "started_at", "reference", "active_since")}
    config, summary = load(row["config"]) or {}, load(row["summary"])
    kept.update(active_before_seconds=row["active_before_seconds"], config=config, summary=summary)
    return ExecutionRecord(**kept, status=status, ended_at=ended, owner=owner)


def leader_board_dicts(conn: Conn, execution_id: str) -> list[dict[str, Any]]:
    """Every leader_board row of the execution as a dict (JSON parsed), by round number then team_id."""
    query = (
        f"SELECT {sql.LEADER_BOARD_COLUMNS} FROM leader_board WHERE execution_id = ? "
        "ORDER BY round_number, team_id"
    )
    rows = dicts(conn, query, [execution_id])
    for row in rows:
        row["score_details"] = load(row["score_details"]) or {}
        row["usage_info"] = load(row["usage_info"])
    return rows


BOARD = TypeAdapter(list[LeaderBoardRow], config=_ON_FIRST_USE)


def leader_board(conn: Conn, execution_id: str) -> list[LeaderBoardRow]:
    """Every leader_board row of the execution, by round number then team_id."""
    return BOARD.validate_python(leader_board_dicts(conn, execution_id))


def round_statuses(conn: Conn, execution_id: str) -> list[RoundStatusRecord]:
    """Every round_status row of the execution, by round number then team_id."""
    query = (
        f"SELECT {sql.ROUND_STATUS_INSERT_COLUMNS} FROM round_status WHERE execution_id = ? "
        "ORDER BY round_number, team_id"
    )
    return [RoundStatusRecord(**row) for row in dicts(conn, query, [execution_id])]


def ranking_dicts(conn: Conn, execution_id: str, max_round: int | None = None) -> list[dict[str, Any]]:
    """The leaderboard as plain dicts, best first (see `AggregationStore.get_ranking`)."""
    rows = conn.execute(sql.RANKING, [execution_id]).fetchall()
    if max_round is not None and any(row[4] > max_round for row in rows):
        # later rounds are on the board already: aggregate the earlier ones (one query: one snapshot)
        rows = conn.execute(sql.RANKING_UP_TO_ROUND, [execution_id, max_round]).fetchall()
    return [
        {"team_id": team_id, "team_name": name, "max_score": float(score), "total_rounds": int(rounds)}
        for team_id, name, score, rounds, _ in rows
    ]


# one validation call for the whole list: a third of the cost of a model per entry
_RANKING = TypeAdapter(list[RankingEntry], config=_ON_FIRST_USE)


def ranking(conn: Conn, execution_id: str, max_round: int | None = None) -> list[RankingEntry]:
    """The leaderboard, best first (see `AggregationStore.get_ranking`)."""
    return _RANKING.validate_python(ranking_dicts(conn, execution_id, max_round))
