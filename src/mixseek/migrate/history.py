"""A mixseek-core `mixseek.db`'s executions, read-only, as importable records. Plain read-only DuckDB, not a
store (whose first migration would add a sequence mixseek-core's schema has); columns looked up first, as the
schema changed between releases; naive timestamps are UTC."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from mixseek.config.evaluator import PERCENT
from mixseek.migrate.report import Report
from mixseek.migrate.rounds import RoundReader, Row, best_rounds, stored_time, when
from mixseek.storage.duckdb_instance import connect
from mixseek.storage.errors import StorageError
from mixseek.storage.import_history import ImportedExecution, ModelCallUsage
from mixseek.storage.models import RoundRecord

_STATUSES = ("completed", "partial_failure", "failed")


@dataclass
class LegacyHistory:
    executions: list[ImportedExecution] = field(default_factory=list)
    rounds: int = 0


def _rows(conn: duckdb.DuckDBPyConnection, table: str, wanted: set[str], present: set[str]) -> list[Row]:
    columns = sorted(wanted & present)
    cursor = conn.execute(f"SELECT {', '.join(columns)} FROM {table}")
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _unreadable(db: Path, exc: duckdb.Error) -> StorageError:
    """One line naming the file and DuckDB's reason (damaged, locked, written by a newer DuckDB, ...)."""
    return StorageError(f"{db}: cannot read the mixseek-core database: {' '.join(str(exc).split())}")


def _open(db: Path) -> duckdb.DuckDBPyConnection:
    try:
        return connect(str(db), read_only=True)
    except duckdb.Error as exc:
        raise _unreadable(db, exc) from None


def read_history(db: Path, report: Report) -> LegacyHistory:
    """Every finished execution of a mixseek-core database; the file is opened read-only."""
    conn = _open(db)
    try:
        return _read(conn, db, report)
    except duckdb.Error as exc:
        raise _unreadable(db, exc) from None
    finally:
        conn.close()


_SUMMARY_COLUMNS = (
    {"execution_id", "user_prompt", "status"}
    | {"total_teams", "total_execution_time_seconds"}
    | {"completed_at", "created_at"}
)
_BOARD_COLUMNS = (
    {"execution_id", "team_id", "team_name", "round_number", "submission_content", "submission_format"}
    | {"score", "evaluation_score", "score_details", "evaluation_feedback", "usage_info", "final_submission"}
    | {"exit_reason", "created_at"}
)
_HISTORY_COLUMNS = {"execution_id", "team_id", "round_number", "message_history", "member_submissions_record"}
_STATUS_COLUMNS = (
    {"execution_id", "team_id", "round_number"}
    | {"should_continue", "reasoning", "confidence_score"}
    | {"round_started_at", "round_ended_at"}
)
Key = tuple[str, str, int]


def _key(row: Row) -> Key:
    return (row["execution_id"], row["team_id"], int(row["round_number"]))


@dataclass
class _Tables:
    """The rows of one database, by execution (board rows) and by round key (the rest)."""

    summaries: list[Row]
    boards: dict[str, dict[Key, Row]]
    histories: dict[Key, Row]
    statuses: dict[Key, Row]


def _tables(conn: duckdb.DuckDBPyConnection, columns: dict[str, set[str]]) -> _Tables:
    def rows(table: str, wanted: set[str]) -> list[Row]:
        return _rows(conn, table, wanted, columns[table]) if table in columns else []

    boards: dict[str, dict[Key, Row]] = defaultdict(dict)
    # a round saved twice (early releases had no unique key) counts once: its latest row
    for row in sorted(rows("leader_board", _BOARD_COLUMNS), key=lambda r: when(r.get("created_at"))):
        boards[row["execution_id"]][_key(row)] = row
    return _Tables(
        summaries=sorted(
            rows("execution_summary", _SUMMARY_COLUMNS),
            key=lambda r: (when(r.get("completed_at")), r["execution_id"]),
        ),
        boards=boards,
        histories={_key(r): r for r in rows("round_history", _HISTORY_COLUMNS)},
        statuses={_key(r): r for r in rows("round_status", _STATUS_COLUMNS)},
    )


def _execution(summary: Row, tables: _Tables, reader: RoundReader, db: Path) -> ImportedExecution:
    eid = summary["execution_id"]
    boards = sorted(tables.boards.get(eid, {}).values(), key=lambda b: (b["team_id"], b["round_number"]))
    last_round = {b["team_id"]: b["round_number"] for b in boards}
    exits = {b["team_id"]: str(b["exit_reason"]) for b in boards if b.get("exit_reason")}
    records: list[RoundRecord] = []
    usage: list[ModelCallUsage] = []
    finals: set[tuple[str, int]] = set()
    for board in boards:
        key = _key(board)
        team_exit = exits.get(board["team_id"], "") if last_round[board["team_id"]] == key[2] else None
        found = reader.round(eid, board, tables.histories.get(key), tables.statuses.get(key), team_exit)
        if found is not None:
            record, calls, final = found
            records.append(record)
            usage.extend(calls)
            if final:
                finals.add((record.team_id, record.round_number))
    ended = (
        stored_time(summary.get("completed_at"))
        or stored_time(summary.get("created_at"))
        or max((r.ended_at for r in records), default=datetime.now(UTC))
    )
    seconds = summary.get("total_execution_time_seconds")
    started = (
        ended - timedelta(seconds=float(seconds))
        if isinstance(seconds, int | float)
        else min((r.started_at for r in records), default=ended)
    )
    config: dict[str, Any] = {
        "imported_from": "mixseek-core",
        "source": str(db),
        "total_teams": summary.get("total_teams"),
    }
    if not all(PERCENT.contains(r.evaluation_score) for r in records):
        config["evaluator"] = {"metrics": [{"name": "mixseek-core", "scale": "unbounded"}]}
        reader.report.change(
            reader.label, f"execution {eid}", "scores outside 0–100 kept: its scale is unbounded"
        )
    return ImportedExecution(
        execution_id=eid,
        user_prompt=summary.get("user_prompt") or "",
        status=summary["status"],
        started_at=started,
        ended_at=ended,
        config=config,
        rounds=records,
        final_rounds=frozenset(finals) or best_rounds(records),
        usage=usage,
    )


def _read(conn: duckdb.DuckDBPyConnection, db: Path, report: Report) -> LegacyHistory:
    columns: dict[str, set[str]] = defaultdict(set)
    query = "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main'"
    for table, column in conn.execute(query).fetchall():
        columns[table].add(column)
    if "schema_version" in columns and "executions" in columns:
        raise StorageError(
            f"{db}: already a database of this mixseek, not of mixseek-core: nothing to migrate"
        )
    label = db.name
    history = LegacyHistory()
    if "execution_summary" not in columns:
        report.drop(label, "execution_summary", "no such table: no execution to import")
        return history
    tables = _tables(conn, columns)
    reader = RoundReader(report, label)
    scores = [float(b.get("evaluation_score") or 0) for rows in tables.boards.values() for b in rows.values()]
    if "score" not in columns["leader_board"] and scores and max(scores) <= 1.0:
        reader.scale = 100.0
        report.change(label, "leader_board.evaluation_score", "scores were on a 0–1 scale: imported as 0–100")
    unscored: dict[str, int] = defaultdict(int)
    for key in set(tables.histories) - {k for rows in tables.boards.values() for k in rows}:
        unscored[key[0]] += 1
    for summary in tables.summaries:
        eid = summary["execution_id"]
        if summary.get("status") not in _STATUSES:
            report.drop(label, f"execution {eid}", f"unknown status {summary.get('status')!r}: not imported")
            continue
        execution = _execution(summary, tables, reader, db)
        history.executions.append(execution)
        history.rounds += len(execution.rounds)
        if unscored.get(eid):
            report.drop(label, f"execution {eid}", f"{unscored[eid]} round(s) without a score: not imported")
    for eid in sorted(set(tables.boards) - {s["execution_id"] for s in tables.summaries}):
        report.drop(
            label, f"execution {eid}", "no execution_summary row (the run did not finish): not imported"
        )
    if history.executions:
        report.drop(
            label,
            "usage",
            "mixseek-core did not record evaluator and judgment usage: only leader and member tokens are "
            "imported",
        )
    return history
