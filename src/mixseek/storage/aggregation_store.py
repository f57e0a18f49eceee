"""`AggregationStore`: executions, rounds and the leaderboard in one DuckDB file, worked on in worker threads;
a store serves one event loop at a time. Rankings read `team_standings`, one row per team rewritten with its
leader_board rows: 1.4 ms where the direct aggregate took 8 ms at 640k rows (`bench/store.py`, "snapshot")."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

import duckdb

import mixseek.storage._pairwise as _pairwise
import mixseek.storage._rows as _rows
import mixseek.storage._sql as sql
from mixseek.config.workspace import WORKSPACE_ENV, Workspace
from mixseek.errors import ConfigError
from mixseek.round_state import RoundState
from mixseek.storage._connection import Connector
from mixseek.storage._round_writes import (
    CALL,
    FINAL_CALL,
    JUDGMENT,
    MODEL_CALLS,
    ROUND_STATUS,
    SAVE_ROUND,
    CallRow,
    Paid,
    RoundStatusRow,
    json_text,
)
from mixseek.storage._write_queue import WriteKind, WriteQueue
from mixseek.storage.errors import RecordNotFoundError, StorageError
from mixseek.storage.lease import ExecutionOwnedError, ExecutionOwner
from mixseek.storage.listing import duration_seconds, list_overviews, stored_summary
from mixseek.storage.models import (
    ExecutionLease,
    ExecutionRecord,
    ExecutionStatus,
    LeaderBoardRow,
    RoundDecision,
    RoundHistoryRecord,
    RoundKey,
    RoundRecord,
    RoundStatusRecord,
    as_utc,
)
from mixseek.storage.pairwise_views import PairwiseComparison, PairwiseStanding
from mixseek.storage.read_model import (
    read_execution,
    read_execution_outline,
    read_outline_since,
    usage_totals,
)
from mixseek.storage.retry import RetryPolicy, run_retrying_async
from mixseek.storage.schema import EXECUTION_STATUSES
from mixseek.storage.views import (
    ExecutionOverview,
    ExecutionProgress,
    ExecutionView,
    RankingEntry,
    UsageTotals,
)

T = TypeVar("T")
Conn = duckdb.DuckDBPyConnection

WRITER_IDLE_CLOSE_SECONDS = 0.05


def default_db_path() -> Path:
    """`$MIXSEEK_WORKSPACE/mixseek.db`."""
    workspace = os.environ.get(WORKSPACE_ENV)
    if not workspace:
        raise ConfigError(WORKSPACE_ENV, None, f"not set: pass db_path or set {WORKSPACE_ENV}")
    return Workspace(Path(workspace)).db_path


def _utc_or_now(value: datetime | None) -> datetime:
    return as_utc(value) if value is not None else _rows.now()


def _update(
    conn: Conn, query: str, params: Sequence[object], missing: str, found: Callable[[list[Any]], bool] = bool
) -> None:
    """Run `UPDATE ... RETURNING <column>`; RecordNotFoundError(`missing`), which rolls the
    transaction back, unless `found(returned values)` (by default: a row changed)."""
    returned = [row[0] for row in conn.execute(query, list(params)).fetchall()]
    if not found(returned):
        raise RecordNotFoundError(missing)


def _round_state(row: tuple[Any, ...]) -> RoundState:
    """A row of the submission-history queries (round, content, score, details, feedback, start, end)."""
    number, content, score, details, feedback, started, ended = row
    return RoundState(
        round_number=number,
        submission_content=content,
        evaluation_score=score,
        score_details=_rows.load(details) or {},
        evaluation_feedback=feedback,
        round_started_at=started,
        round_ended_at=ended,
    )


def _call_rows(execution_id: str, calls: Sequence[Mapping[str, Any]]) -> list[CallRow]:
    """Usage of model requests (see `record_model_calls`) as model_calls rows."""
    return [
        [
            execution_id,
            c.get("team_id"),
            c.get("round_number"),
            c["site"],
            c["model"],
            int(c.get("requests", 1)),
            int(c.get("input_tokens", 0)),
            int(c.get("output_tokens", 0)),
            c.get("cost"),
            as_utc(c["created_at"]) if c.get("created_at") else _rows.now(),
            None if c.get("settings") is None else json.dumps(c["settings"]),
        ]
        for c in calls
    ]


def _insert_lease(conn: Conn, execution_id: str, owner: ExecutionOwner) -> None:
    now = _rows.now()
    conn.execute("DELETE FROM execution_leases WHERE execution_id = ?", [execution_id])
    who = [owner.token, owner.pid, owner.host, owner.process_started, owner.command_sha256]
    conn.execute(
        f"INSERT INTO execution_leases ({sql.LEASE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [execution_id, *who, now, now],
    )


def _holds(conn: Conn, execution_id: str, owner: ExecutionOwner) -> bool:
    query = "SELECT 1 FROM execution_leases WHERE execution_id = ? AND owner_token = ?"
    return bool(conn.execute(query, [execution_id, owner.token]).fetchall())


def _claimable(
    conn: Conn, execution_id: str, owner: ExecutionOwner
) -> tuple[ExecutionRecord, ExecutionLease | None]:
    """The execution as readers see it, and its lease if a living process other than `owner` holds it."""
    found = _rows.dicts(conn, f"{sql.EXECUTIONS_WITH_OWNER} WHERE e.execution_id = ?", [execution_id])
    if not found:
        raise RecordNotFoundError(f"no execution {execution_id!r}")
    record = _rows.execution(found[0])
    if _holds(conn, execution_id, owner):
        return record, None
    lease = record.owner
    return record, lease if lease is not None and lease.alive else None


class AggregationStore:
    """The DuckDB store of one workspace (or any `db_path`); `read_only` stores may read beside each other,
    not beside a writer's open connection. The file stays open `idle_close_seconds` after the last operation:
    50 ms for a writer, 0 for a reader (polling then delays a writer by one operation at most)."""

    def __init__(
        self,
        db_path: str | Path | None = None,
        *,
        read_only: bool = False,
        idle_close_seconds: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        path = Path(db_path) if db_path is not None else default_db_path()
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        if idle_close_seconds is None:
            idle_close_seconds = 0.0 if read_only else WRITER_IDLE_CLOSE_SECONDS
        self._connector = Connector(path, read_only=read_only, idle_close_seconds=idle_close_seconds)
        self._retry = retry if retry is not None else RetryPolicy()
        self._writes = WriteQueue(lambda work, checkpoint: self._run(work, write=True, checkpoint=checkpoint))

    @property
    def db_path(self) -> Path:
        return self._connector.path

    @property
    def location(self) -> str:
        """Where the store keeps its data, for messages: the database file."""
        return str(self._connector.path)

    @property
    def read_only(self) -> bool:
        return self._connector.read_only

    @property
    def is_open(self) -> bool:
        """Whether the store holds the file open right now."""
        return self._connector.is_open

    @property
    def connections_opened(self) -> int:
        return self._connector.opened

    # -- lifecycle ------------------------------------------------------------

    async def initialize(self) -> None:
        """Open the file now (creating or upgrading its schema) instead of on first use."""
        await self._call(lambda conn: None, write=False)

    def close(self) -> None:
        """Release the file at once; the next operation opens it again."""
        self._connector.close()

    async def aclose(self) -> None:
        await asyncio.to_thread(self._connector.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _call(self, work: Callable[[Conn], T], *, write: bool) -> T:
        """Run `work` on the connection: a read at once, a write through the write queue."""
        if not write:
            return await self._run(work, write=False)
        result: T = await self._write(CALL, work)
        return result

    async def _write(self, kind: WriteKind[Any], payload: Any) -> Any:
        if self.read_only:
            raise StorageError(f"{self.db_path}: store is read-only")
        return await self._writes.submit(kind, payload)

    async def _run(self, work: Callable[[Conn], T], *, write: bool, checkpoint: bool = False) -> T:
        """Run `work` in a worker thread, retrying while another process holds the file."""
        return await run_retrying_async(
            self._retry,
            str(self.db_path),
            lambda: asyncio.to_thread(self._connector.run, work, transaction=write, checkpoint=checkpoint),
        )

    # -- executions -----------------------------------------------------------

    async def create_execution(
        self,
        execution_id: str,
        user_prompt: str,
        config: dict[str, Any],
        *,
        owner: ExecutionOwner | None = None,
        reference: str | None = None,
    ) -> None:
        """A new 'running' execution, owned by `owner` (by default this process; see `storage.lease`)."""
        owner = owner or ExecutionOwner.this_process()

        def work(conn: Conn) -> None:
            now = _rows.now()  # this process's active span starts with the execution
            conn.execute(
                "INSERT INTO executions (execution_id, user_prompt, status, config, started_at, reference, "
                "active_since, active_before_seconds) VALUES (?, ?, 'running', ?, ?, ?, ?, 0)",
                [execution_id, user_prompt, json_text(config), now, reference, now],
            )
            _insert_lease(conn, execution_id, owner)

        await self._call(work, write=True)

    async def claim_execution(self, execution_id: str, owner: ExecutionOwner) -> float:
        """Make `owner` resume an execution; its seconds active so far (ExecutionOwnedError if taken)."""

        def work(conn: Conn) -> ExecutionLease | float:
            record, other = _claimable(conn, execution_id, owner)
            if other is not None:
                return other
            earlier = duration_seconds(record, stored_summary(record))
            _update(
                conn,
                "UPDATE executions SET status = 'running', ended_at = NULL, summary = NULL, "
                "active_since = ?, active_before_seconds = ? "
                "WHERE execution_id = ? AND status IN ('running', 'interrupted') RETURNING execution_id",
                [_rows.now(), earlier, execution_id],
                f"execution {execution_id!r} has ended; only running or interrupted ones can be resumed",
            )
            _insert_lease(conn, execution_id, owner)
            return earlier

        claimed = await self._call(work, write=True)
        if isinstance(claimed, ExecutionLease):
            raise ExecutionOwnedError(execution_id, claimed)
        return claimed

    async def renew_lease(self, execution_id: str, owner: ExecutionOwner) -> None:
        """Refresh `owner`'s heartbeat; ExecutionOwnedError if it no longer owns the execution."""
        query = (
            "UPDATE execution_leases SET heartbeat_at = ? WHERE execution_id = ? AND owner_token = ? "
            "RETURNING execution_id"
        )
        renewed = await self._call(
            lambda conn: conn.execute(query, [_rows.now(), execution_id, owner.token]).fetchall(), write=True
        )
        if not renewed:
            record = await self.get_execution(execution_id)
            raise ExecutionOwnedError(execution_id, record.owner if record is not None else None)

    # -- model calls ----------------------------------------------------------

    async def record_model_calls(self, execution_id: str, calls: Sequence[Mapping[str, Any]]) -> None:
        """Append the usage of requests that paid for no stored result (the others go with its write)."""
        rows = _call_rows(execution_id, calls)
        if rows:
            await self._write(MODEL_CALLS, rows)

    async def get_usage_totals(
        self, execution_id: str, *, team_id: str | None = None, round_number: int | None = None
    ) -> UsageTotals:
        """Summed usage of an execution (or of one team, or one team round)."""
        query, params = sql.usage_query("", execution_id, team_id, round_number)
        rows = await self._call(lambda conn: _rows.dicts(conn, query, params), write=False)
        return usage_totals(rows[0]) if rows else UsageTotals()

    async def get_usage_by_site(
        self, execution_id: str, *, team_id: str | None = None, round_number: int | None = None
    ) -> dict[str, UsageTotals]:
        """Summed usage per call site, e.g. "member 'analyst' of team 'alpha'"."""
        query, params = sql.usage_query("site", execution_id, team_id, round_number)
        rows = await self._call(lambda conn: _rows.dicts(conn, query, params), write=False)
        return {row["site"]: usage_totals(row) for row in rows}

    async def finish_execution(
        self,
        execution_id: str,
        status: ExecutionStatus,
        summary: dict[str, Any] | None,
        *,
        ended_at: datetime | None = None,
        owner: ExecutionOwner | None = None,
    ) -> None:
        """Store the final status and summary and release the lease in one transaction committed into the file
        (a full disk leaves it resumable); with `owner`, only while it holds the lease."""
        if status not in EXECUTION_STATUSES:
            raise ValueError(f"status must be one of {', '.join(EXECUTION_STATUSES)}, got {status!r}")
        ended = _utc_or_now(ended_at)

        def work(conn: Conn) -> bool:
            if owner is not None and not _holds(conn, execution_id, owner):
                return False
            _update(
                conn,
                "UPDATE executions SET status = ?, summary = ?, ended_at = ? WHERE execution_id = ? "
                "RETURNING execution_id",
                [status, json_text(summary), ended, execution_id],
                f"no execution {execution_id!r}",
            )
            conn.execute("DELETE FROM execution_leases WHERE execution_id = ?", [execution_id])
            return True

        if not await self._write(FINAL_CALL, work):
            record = await self.get_execution(execution_id)
            raise ExecutionOwnedError(execution_id, record.owner if record is not None else None)

    async def get_execution(self, execution_id: str) -> ExecutionRecord | None:
        """The execution as readers should see it (see `ExecutionRecord`)."""
        query = f"{sql.EXECUTIONS_WITH_OWNER} WHERE e.execution_id = ?"
        rows = await self._call(lambda conn: _rows.dicts(conn, query, [execution_id]), write=False)
        return _rows.execution(rows[0]) if rows else None

    async def list_executions(self, limit: int = 50) -> list[ExecutionRecord]:
        """The most recently started executions first."""
        query = f"{sql.EXECUTIONS_WITH_OWNER} ORDER BY e.started_at DESC, e.execution_id DESC LIMIT ?"
        rows = await self._call(lambda conn: _rows.dicts(conn, query, [limit]), write=False)
        return [_rows.execution(row) for row in rows]

    # -- the read model (see `storage.views`) -----------------------------------------

    async def get_execution_view(self, execution_id: str) -> ExecutionView | None:
        """Everything stored about one execution, as one consistent snapshot; None if unknown."""
        return await self._call(lambda conn: read_execution(conn, execution_id), write=False)

    async def get_execution_outline(self, execution_id: str) -> ExecutionView | None:
        """`get_execution_view` without each round's texts, as a page of it all shows it."""
        return await self._call(lambda conn: read_execution_outline(conn, execution_id), write=False)

    async def get_execution_outline_since(
        self, execution_id: str, known: ExecutionProgress | None
    ) -> tuple[ExecutionProgress, ExecutionView | None] | None:
        """An execution's progress and, unless it is still `known`, its outline, in one snapshot."""
        return await self._call(lambda conn: read_outline_since(conn, execution_id, known), write=False)

    async def list_execution_overviews(self, limit: int = 50) -> list[ExecutionOverview]:
        """The most recently started executions first, one listing line each."""
        return await self._call(lambda conn: list_overviews(conn, limit), write=False)

    # -- rounds ---------------------------------------------------------------

    async def save_round(self, record: RoundRecord, *, model_calls: Sequence[Mapping[str, Any]] = ()) -> None:
        """Write (or replace) one round's rows and the usage that produced it, all or nothing."""
        await self._write(SAVE_ROUND, Paid(record, _call_rows(record.execution_id, model_calls)))

    async def mark_round_started(self, key: RoundKey, *, started_at: datetime | None = None) -> None:
        """Record that a team's round is under way (round_status 'running')."""
        row: RoundStatusRow = (*key, "running", _utc_or_now(started_at), None, None)
        await self._write(ROUND_STATUS, Paid(row))

    async def mark_rounds_started(
        self, execution_id: str, round_number: int, team_ids: Sequence[str]
    ) -> None:
        """`mark_round_started` for several teams in one transaction (a round's start)."""
        started = _rows.now()
        # submitted together, they share a batch (a team given twice goes in a later statement)
        await asyncio.gather(
            *(
                self.mark_round_started(RoundKey(execution_id, t, round_number), started_at=started)
                for t in team_ids
            )
        )

    async def mark_round_failed(
        self,
        key: RoundKey,
        status: Literal["failed", "timeout"],
        error_message: str,
        *,
        ended_at: datetime | None = None,
        model_calls: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Record that a team's round ended in 'failed' or 'timeout', with the usage it made."""
        if status not in ("failed", "timeout"):
            raise ValueError(f"status must be 'failed' or 'timeout', got {status!r}")
        row: RoundStatusRow = (*key, status, None, _utc_or_now(ended_at), error_message)
        await self._write(ROUND_STATUS, Paid(row, _call_rows(key.execution_id, model_calls)))

    async def update_judgment(
        self, key: RoundKey, decision: RoundDecision, *, model_calls: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        """Store the decision made after a saved round, with the usage of the judgment."""
        await self._write(JUDGMENT, Paid((key, decision), _call_rows(key.execution_id, model_calls)))

    async def mark_final(self, key: RoundKey) -> None:
        """Flag this round as the team's final submission and unflag the team's other rounds."""
        execution_id, team_id, round_number = key

        def work(conn: Conn) -> None:
            _update(
                conn,
                "UPDATE leader_board SET is_final = (round_number = ?) "
                "WHERE execution_id = ? AND team_id = ? RETURNING round_number",
                [round_number, execution_id, team_id],
                f"no leader_board row for round {round_number} of team {team_id!r} in {execution_id!r}",
                found=lambda rounds: round_number in rounds,
            )

        await self._call(work, write=True)

    # -- the final pairwise stage (see `orchestrator.pairwise`) ------------------------

    async def save_pairwise_comparison(
        self,
        execution_id: str,
        comparison: PairwiseComparison,
        *,
        model_calls: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Store one comparison with the usage of the requests that judged it, in one transaction."""
        calls = _call_rows(execution_id, model_calls)
        await self._call(
            lambda conn: _pairwise.insert_comparison(conn, execution_id, comparison, calls), write=True
        )

    async def get_pairwise_comparisons(self, execution_id: str) -> list[PairwiseComparison]:
        return await self._call(lambda conn: _pairwise.read_comparisons(conn, execution_id), write=False)

    async def save_pairwise_ranking(self, execution_id: str, standings: Sequence[PairwiseStanding]) -> None:
        """Replace the execution's pairwise ranking (a resumed stage refits it from every comparison)."""
        await self._call(lambda conn: _pairwise.replace_ranking(conn, execution_id, standings), write=True)

    async def rebuild_standings(self) -> None:
        """Recompute every team's standings from leader_board (after a bulk load with plain SQL)."""

        def work(conn: Conn) -> None:
            for statement in sql.REBUILD_ALL_STANDINGS:
                conn.execute(statement)

        await self._call(work, write=True)

    # -- reads ----------------------------------------------------------------

    async def get_ranking(self, execution_id: str, *, max_round: int | None = None) -> list[RankingEntry]:
        """One entry per team, best `max_score` first (ties: later best round, `team_id`); to `max_round`."""
        return await self._call(lambda conn: _rows.ranking(conn, execution_id, max_round), write=False)

    async def get_leader_board_ranking(
        self, execution_id: str, *, max_round: int | None = None
    ) -> list[dict[str, Any]]:
        """`get_ranking` as the seeds' dicts: `{"team_id", "team_name", "max_score", "total_rounds"}`."""
        return await self._call(lambda conn: _rows.ranking_dicts(conn, execution_id, max_round), write=False)

    async def get_team_submission_history(
        self, execution_id: str, team_id: str, *, before_round: int | None = None
    ) -> list[RoundState]:
        """The team's scored rounds (those before `before_round`, if given), by round number."""
        limit = before_round if before_round is not None else 2**31 - 1
        rows = await self._call(
            lambda conn: conn.execute(sql.SUBMISSION_HISTORY, [execution_id, team_id, limit]).fetchall(),
            write=False,
        )
        return [_round_state(row) for row in rows]

    async def get_submission_histories(
        self, execution_id: str, *, before_round: int
    ) -> dict[str, list[RoundState]]:
        """Every team's scored rounds before `before_round`, in one query (a round barrier's snapshot)."""
        rows = await self._call(
            lambda conn: conn.execute(sql.ALL_SUBMISSION_HISTORIES, [execution_id, before_round]).fetchall(),
            write=False,
        )
        histories: dict[str, list[RoundState]] = {}
        for team_id, *history_row in rows:
            histories.setdefault(team_id, []).append(_round_state(tuple(history_row)))
        return histories

    async def get_round_history(self, key: RoundKey) -> RoundHistoryRecord | None:
        records = await self._round_histories(f"WHERE {sql.KEY}", list(key))
        return records[0] if records else None

    async def get_round_histories(self, execution_id: str) -> list[RoundHistoryRecord]:
        """Every round_history row of the execution in one read, by round number then team_id."""
        return await self._round_histories(
            "WHERE execution_id = ? ORDER BY round_number, team_id", [execution_id]
        )

    async def _round_histories(self, where: str, params: list[object]) -> list[RoundHistoryRecord]:
        query = (
            "SELECT id, execution_id, team_id, team_name, round_number, message_history, "
            f"member_submissions_record, created_at FROM round_history {where}"
        )
        rows = await self._call(lambda conn: _rows.dicts(conn, query, params), write=False)
        return [
            RoundHistoryRecord(
                **{**row, "member_submissions_record": _rows.load(row["member_submissions_record"])}
            )
            for row in rows
        ]

    async def get_leader_board(self, execution_id: str) -> list[LeaderBoardRow]:
        """Every leader_board row of the execution, by round number then team_id."""
        return await self._call(lambda conn: _rows.leader_board(conn, execution_id), write=False)

    async def get_round_statuses(self, execution_id: str) -> list[RoundStatusRecord]:
        """Every round_status row of the execution, by round number then team_id."""
        return await self._call(lambda conn: _rows.round_statuses(conn, execution_id), write=False)
