"""The store's writes as kinds the write queue can batch (see `_write_queue`): n saves cost the statements of
one save, n decisions one UPDATE. A result carries the usage rows that paid for it (`Paid`) into its
transaction, so a process killed right after storing it has stored what it cost."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from itertools import islice
from typing import Any, Generic, TypeVar

import duckdb
from pydantic_core import to_json

import mixseek.storage._sql as sql
from mixseek.storage._write_queue import WriteKind
from mixseek.storage.errors import RecordNotFoundError
from mixseek.storage.models import RoundDecision, RoundKey, RoundRecord, as_utc

Conn = duckdb.DuckDBPyConnection
P = TypeVar("P")

# Rows per statement: bounds the statement's size (and its parameter count) for huge batches.
MAX_ROWS_PER_STATEMENT = 256


def json_text(value: Any) -> str | None:
    return None if value is None else to_json(value).decode("utf-8")


def chunks(items: Sequence[Any], size: int = MAX_ROWS_PER_STATEMENT) -> list[list[Any]]:
    it = iter(items)
    return list(iter(lambda: list(islice(it, size)), []))


def flat(rows: Sequence[Sequence[object]]) -> list[object]:
    return [value for row in rows for value in row]


def execute_rows(conn: Conn, statement: Callable[[int], str], rows: Sequence[Sequence[object]]) -> None:
    """Run the multi-row `statement(n)` over `rows`, n rows at a time."""
    for chunk in chunks(rows):
        conn.execute(statement(len(chunk)), flat(chunk))


def _row(r: RoundRecord, columns: str) -> list[object]:
    """`r`'s values of a table's `columns`: JSON columns as text, its round_status 'completed'."""
    fields = {
        **dict(r),
        "started_at": as_utc(r.started_at),
        "ended_at": as_utc(r.ended_at),
        "status": "completed",
        "error_message": None,
    }
    return [
        json_text(v) if isinstance(v, dict) else v for v in (fields[c.strip()] for c in columns.split(","))
    ]


_ROUND_TABLES = (
    ("round_history", sql.ROUND_HISTORY_INSERT_COLUMNS),
    ("leader_board", sql.LEADER_BOARD_INSERT_COLUMNS),
    ("round_status", sql.ROUND_STATUS_INSERT_COLUMNS),
)


def _save_rounds(conn: Conn, records: Sequence[RoundRecord]) -> list[Any]:
    """Replace the rows of these rounds (their keys are distinct) and their teams' standings."""
    for chunk in chunks(records):
        keys = flat([r.key for r in chunk])
        for table, _ in _ROUND_TABLES:
            conn.execute(sql.delete_rounds(table, len(chunk)), keys)
        for table, columns in _ROUND_TABLES:
            conn.execute(sql.insert(table, columns, len(chunk)), flat([_row(r, columns) for r in chunk]))
    refresh_standings(conn, {(r.execution_id, r.team_id) for r in records})
    return [None] * len(records)


def refresh_standings(conn: Conn, teams: set[tuple[str, str]]) -> None:
    """Rewrite these (execution_id, team_id) teams' standings from the board."""
    for chunk in chunks(sorted(teams)):
        params = flat(chunk)
        for statement in sql.refresh_standings(len(chunk)):
            conn.execute(statement, params)


# the decision stored with a saved round
Judgment = tuple[RoundKey, RoundDecision]


def _update_judgments(conn: Conn, judgments: Sequence[Judgment]) -> list[Any]:
    found: set[RoundKey] = set()
    for chunk in chunks(judgments):
        rows = [(*key, d.should_continue, d.reasoning, d.confidence, d.exit_reason) for key, d in chunk]
        returned = conn.execute(sql.update_judgments(len(chunk)), flat(rows)).fetchall()
        found.update(RoundKey(e, t, int(r)) for e, t, r in returned)
    missing = "no round {2} of team {1!r} in {0!r}"
    return [None if key in found else RecordNotFoundError(missing.format(*key)) for key, _ in judgments]


# (execution_id, team_id, round_number, status, started_at, ended_at, error_message)
RoundStatusRow = tuple[str, str, int, str, datetime | None, datetime | None, str | None]


def _upsert_round_statuses(conn: Conn, rows: Sequence[RoundStatusRow]) -> list[Any]:
    execute_rows(conn, sql.upsert_round_status, rows)
    return [None] * len(rows)


# The values of `sql.MODEL_CALL_INSERT_COLUMNS` for the usage of one model request.
CallRow = Sequence[object]


def _insert_calls(conn: Conn, rows: Sequence[CallRow]) -> None:
    execute_rows(conn, partial(sql.insert, "model_calls", sql.MODEL_CALL_INSERT_COLUMNS), rows)


def _insert_model_calls(conn: Conn, batches: Sequence[Sequence[CallRow]]) -> list[Any]:
    _insert_calls(conn, [row for rows in batches for row in rows])
    return [None] * len(batches)


def _run_each(conn: Conn, works: Sequence[Callable[[Conn], Any]]) -> list[Any]:
    return [work(conn) for work in works]


@dataclass(frozen=True)
class Paid(Generic[P]):
    """A write and the usage rows of the model requests that produced its result."""

    payload: P
    calls: Sequence[CallRow] = ()


def _paid(
    name: str, write: Callable[[Conn, Sequence[P]], list[Any]], key: Callable[[P], object]
) -> WriteKind[Paid[P]]:
    """The kind `name`, whose writes store their usage rows even when `write` refuses one (paid for)."""

    def write_paid(conn: Conn, items: Sequence[Paid[P]]) -> list[Any]:
        _insert_calls(conn, [row for item in items for row in item.calls])
        return write(conn, [item.payload for item in items])

    return WriteKind(name, write_paid, key=lambda item: key(item.payload))


SAVE_ROUND: WriteKind[Paid[RoundRecord]] = _paid("save_round", _save_rounds, key=lambda r: r.key)
JUDGMENT: WriteKind[Paid[Judgment]] = _paid("update_judgment", _update_judgments, key=lambda j: j[0])
# starts and failures of rounds; one statement may not upsert a round twice
ROUND_STATUS: WriteKind[Paid[RoundStatusRow]] = _paid(
    "round_status", _upsert_round_statuses, key=lambda r: r[:3]
)
# usage rows of no stored result (a round cut by the budget, say): only ever appended,
# and nothing a write does depends on them
MODEL_CALLS: WriteKind[Sequence[CallRow]] = WriteKind(
    "record_model_calls", _insert_model_calls, commutes=True
)
CALL: WriteKind[Callable[[Conn], Any]] = WriteKind("call", _run_each)
# an execution's final status: stored in the file itself or not at all (see `_connection`)
FINAL_CALL: WriteKind[Callable[[Conn], Any]] = WriteKind("final_call", _run_each, checkpoint=True)
