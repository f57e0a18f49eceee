"""Bringing finished executions recorded by another program into a store (`mixseek migrate`). Each execution
is written whole in one transaction with its original start time and no lease (one cut off half-way would read
as `interrupted`); one already stored is left untouched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import duckdb

import mixseek.storage._sql as sql
from mixseek.storage._connection import Connector
from mixseek.storage._round_writes import SAVE_ROUND, Paid, json_text
from mixseek.storage.models import RoundRecord, as_utc
from mixseek.storage.retry import RetryPolicy, run_retrying

FinishedStatus = Literal["completed", "partial_failure", "failed"]

_CALL_COLUMNS = tuple(column.strip() for column in sql.MODEL_CALL_INSERT_COLUMNS.split(","))


@dataclass(frozen=True)
class ModelCallUsage:
    """Tokens and requests one call site spent in one round (no cost: the source did not know it)."""

    team_id: str
    round_number: int
    site: str
    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    created_at: datetime


@dataclass(frozen=True)
class ImportedExecution:
    """A finished execution as it goes into the store: its row, its scored rounds, their usage."""

    execution_id: str
    user_prompt: str
    status: FinishedStatus
    started_at: datetime
    ended_at: datetime
    config: Mapping[str, Any]
    rounds: Sequence[RoundRecord] = ()
    final_rounds: frozenset[tuple[str, int]] = frozenset()
    """(team_id, round_number) of each team's final submission."""
    usage: Sequence[ModelCallUsage] = ()
    """What each call site spent in each of `rounds` (stored in the same transaction as its round)."""


@dataclass
class ImportOutcome:
    """Which executions were written, and which were in the store already (left as they were)."""

    imported: list[str] = field(default_factory=list)
    already_present: list[str] = field(default_factory=list)


def _call_row(execution_id: str, call: ModelCallUsage) -> list[object]:
    values = {
        **asdict(call),
        "execution_id": execution_id,
        "cost": None,
        "created_at": as_utc(call.created_at),
        "settings": None,
    }
    return [values[column] for column in _CALL_COLUMNS]


def _write(conn: duckdb.DuckDBPyConnection, execution: ImportedExecution) -> bool:
    """Write one execution; False (and no change) when its id is already stored."""
    eid = execution.execution_id
    if conn.execute("SELECT 1 FROM executions WHERE execution_id = ?", [eid]).fetchall():
        return False
    conn.execute(
        "INSERT INTO executions (execution_id, user_prompt, status, config, started_at, ended_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            eid,
            execution.user_prompt,
            execution.status,
            json_text(dict(execution.config)),
            as_utc(execution.started_at),
            as_utc(execution.ended_at),
        ],
    )
    calls: dict[tuple[str, int], list[list[object]]] = {}
    for call in execution.usage:
        calls.setdefault((call.team_id, call.round_number), []).append(_call_row(eid, call))
    items = [Paid(r, calls.pop((r.team_id, r.round_number), [])) for r in execution.rounds]
    if calls:
        raise ValueError(f"execution {eid!r}: usage of rounds it does not import: {sorted(calls)}")
    if items:
        SAVE_ROUND.write(conn, items)
    for team_id, round_number in sorted(execution.final_rounds):
        conn.execute(f"UPDATE leader_board SET is_final = TRUE WHERE {sql.KEY}", [eid, team_id, round_number])
    return True


def import_executions(
    db_path: Path, executions: Sequence[ImportedExecution], *, retry: RetryPolicy | None = None
) -> ImportOutcome:
    """Write each execution in its own transaction into `db_path`; ids already stored are skipped."""
    policy = retry if retry is not None else RetryPolicy()
    db_path.parent.mkdir(parents=True, exist_ok=True)
    connector = Connector(db_path, read_only=False, idle_close_seconds=1.0)
    outcome = ImportOutcome()
    try:
        for execution in executions:

            def attempt(execution: ImportedExecution = execution) -> bool:
                return connector.run(lambda conn: _write(conn, execution), transaction=True)

            written = run_retrying(policy, str(db_path), attempt)
            (outcome.imported if written else outcome.already_present).append(execution.execution_id)
    finally:
        connector.close()
    return outcome
