"""Building the read model (`storage.views`) from the store's tables.

Each reader runs on one connection inside one read transaction, so what it
returns is one consistent snapshot even while the execution goes on, with
one query per table.

A finished execution's summary supplies what only the orchestrator knew
(the stop reason, each team's end, the degraded reasons). A running one
(no summary yet, or a stale one after `exec --resume`) gets the same
fields derived from the rows written so far: this module is the one place
that decides how.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import duckdb
from pydantic import ValidationError

import mixseek.storage._rows as rows
import mixseek.storage._sql as sql
from mixseek.storage.models import ExecutionRecord, ExecutionStatus, RoundStatusRecord
from mixseek.storage.views import (
    BestSubmission,
    ExecutionOverview,
    ExecutionView,
    RankingEntry,
    StoredSummary,
    UsageTotals,
)

Conn = duckdb.DuckDBPyConnection
T = TypeVar("T")
Key = tuple[str, int]  # (team_id, round_number)


def in_snapshot(conn: Conn, read: Callable[[Conn], T]) -> T:
    """Run `read` in a read transaction: every query it makes sees the same committed state."""
    conn.begin()
    try:
        return read(conn)
    finally:
        conn.rollback()


# -- deciding what a record says ---------------------------------------------------------


def stored_summary(record: ExecutionRecord) -> StoredSummary | None:
    """The summary, if it can be trusted: there is one, in a form this version reads, and the
    execution was not resumed since. Without it, the rows tell what they can."""
    if record.summary is None or record.status == "running":
        return None
    try:
        return StoredSummary.model_validate(record.summary)
    except ValidationError:
        return None


def elapsed_seconds(record: ExecutionRecord) -> float:
    """From start to end, or to now while the execution runs."""
    end = record.ended_at if record.ended_at is not None else rows.now()
    return round(max((end - record.started_at).total_seconds(), 0.0), 3)


def usage_totals(row: Mapping[str, Any]) -> UsageTotals:
    cost = row.get("cost")
    return UsageTotals(
        requests=int(row.get("requests") or 0),
        input_tokens=int(row.get("input_tokens") or 0),
        output_tokens=int(row.get("output_tokens") or 0),
        cost=float(cost) if cost is not None else None,
    )


# The view is assembled as plain data and validated once, at the end: one pass of
# pydantic-core over the whole tree costs less than building each round's models one
# by one, and a leader_board row needs no model of its own (`bench/store.py`, "view").
Doc = dict[str, Any]


def _metrics(details: Mapping[str, Any]) -> Doc:
    """score_details as stored: per metric `{"score", "comment"}`, or (older rows) the bare score."""
    return {
        name: (
            {"score": value.get("score"), "comment": value.get("comment")}
            if isinstance(value, Mapping)
            else {"score": value, "comment": None}
        )
        for name, value in details.items()
    }


def _answers(record: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The answers of a stored member submissions record (seed 004's form)."""
    submissions = (record or {}).get("submissions") or []
    return [s for s in submissions if isinstance(s, Mapping)]


def _round(
    number: int,
    row: Mapping[str, Any] | None,
    status: RoundStatusRecord | None,
    answers: list[Mapping[str, Any]],
) -> Doc:
    """A round (`RoundView`) from its leader_board row (once scored) and its status row (once started)."""
    succeeded = sum(1 for a in answers if a.get("status") == "SUCCESS")
    return {
        "round_number": number,
        "status": status.status if status is not None else "completed",
        "score": row["evaluation_score"] if row is not None else None,
        "is_final": row["is_final"] if row is not None else False,
        "started_at": status.started_at if status is not None else None,
        "ended_at": status.ended_at if status is not None else None,
        "metrics": _metrics(row["score_details"]) if row is not None else {},
        "feedback": row["evaluation_feedback"] if row is not None else None,
        "judgment": {
            "should_continue": status.should_continue if status else None,
            "exit_reason": status.exit_reason if status else None,
            "reasoning": status.judgment_reasoning if status else None,
            "confidence": status.judgment_confidence if status else None,
        },
        "members": {"total": len(answers), "succeeded": succeeded, "failed": len(answers) - succeeded},
        "error": status.error_message if status is not None else None,
        "submission": row["submission_content"] if row is not None else None,
        "submission_format": row["submission_format"] if row is not None else None,
        "member_submissions": answers,
        "usage": row["usage_info"] if row is not None else None,
    }


def derived_standing(rounds: Sequence[Doc], status: ExecutionStatus) -> Doc:
    """A team's standing (`TeamStanding` fields but its id and name) from its rounds alone
    (no trusted summary): failed if its last round failed, stopped if the last decision was
    to stop, else as the execution stands."""
    scored = [r for r in rounds if r["score"] is not None]
    best = max(scored, key=lambda r: (r["score"], r["round_number"])) if scored else None
    last = rounds[-1] if rounds else None
    failed = last is not None and last["status"] in ("failed", "timeout")
    stopped = last is not None and last["judgment"]["should_continue"] is False
    return {
        "status": "failed" if failed else "stopped" if stopped else status,
        "rounds_completed": len(scored),
        "best_round": best["round_number"] if best else None,
        "best_score": best["score"] if best else None,
        "exit_reason": last["judgment"]["exit_reason"] if stopped and last else None,
        "error": last["error"] if failed and last else None,
    }


def team_kind(config: Mapping[str, Any], team_id: str) -> str | None:
    """A team's kind from the execution's config snapshot: `workflow` when it has one, else its
    member dispatch (`selective` in snapshots older than the setting); None for a team the
    snapshot does not describe (an imported history)."""
    teams = config.get("teams")
    team = teams.get(team_id) if isinstance(teams, Mapping) else None
    if not isinstance(team, Mapping):
        return None
    if team.get("workflow") is not None:
        return "workflow"
    dispatch = team.get("member_dispatch", "selective")
    return dispatch if dispatch in ("selective", "broadcast") else None


def _team_order(ranking: Sequence[RankingEntry], *team_ids: Iterable[str]) -> list[str]:
    """Ranked teams first, best first; then the others in the order given, each once."""
    order = [e.team_id for e in ranking]
    for ids in team_ids:
        order += [t for t in ids if t not in order]
    return order


def _best(ranking: Sequence[RankingEntry], board: Sequence[Mapping[str, Any]]) -> BestSubmission | None:
    top = [row for row in board if ranking and row["team_id"] == ranking[0].team_id]
    return BestSubmission.from_board(ranking, rows.BOARD.validate_python(top))


def execution_view(
    record: ExecutionRecord,
    board: Sequence[Mapping[str, Any]],
    statuses: Sequence[RoundStatusRecord],
    ranking: Sequence[RankingEntry],
    members: Mapping[Key, Mapping[str, Any] | None],
    usage: tuple[UsageTotals, dict[str, UsageTotals], dict[str, UsageTotals]],
) -> ExecutionView:
    """Everything stored about one execution from its rows (`board`: leader_board rows as
    dicts; `members`: the member record of each round)."""
    summary = stored_summary(record)
    scored = {(r["team_id"], r["round_number"]): r for r in board}
    state = {(s.team_id, s.round_number): s for s in statuses}
    last_round = max((number for _, number in (*scored, *state)), default=0)
    names = {r["team_id"]: r["team_name"] for r in board}
    known = {t.team_id: t for t in summary.teams} if summary is not None else {}
    names.update({team_id: t.team_name for team_id, t in known.items()})
    rounds_of: dict[str, list[int]] = {}
    for team_id, number in sorted({*scored, *state}):
        rounds_of.setdefault(team_id, []).append(number)

    teams: list[Doc] = []
    for position, team_id in enumerate(_team_order(ranking, known, sorted(rounds_of)), start=1):
        rounds = []
        for number in rounds_of.get(team_id, []):
            key = (team_id, number)
            row = scored.get(key)
            answers = _answers(members.get(key)) if row is not None else []
            rounds.append(_round(number, row, state.get(key), answers))
        standing = known.get(team_id)
        teams.append(
            {
                "team_id": team_id,
                "team_name": names.get(team_id, team_id),
                "kind": team_kind(record.config, team_id),
                "position": position if position <= len(ranking) else None,
                **(
                    standing.model_dump(exclude={"team_id", "team_name"})
                    if standing is not None
                    else derived_standing(rounds, record.status)
                ),
                "rounds": rounds,
            }
        )

    totals, by_site, by_model = usage
    return ExecutionView.model_validate(
        {
            "execution_id": record.execution_id,
            "user_prompt": record.user_prompt,
            "status": record.status,
            "stop_reason": summary.stop_reason if summary else None,
            "stop_detail": summary.stop_detail if summary else None,
            "degraded_reasons": summary.degraded_reasons if summary else [],
            "started_at": record.started_at,
            "ended_at": record.ended_at,
            "duration_seconds": summary.duration_seconds if summary else elapsed_seconds(record),
            "rounds_run": summary.rounds_run if summary else last_round,
            "leaderboard": ranking,
            "teams": teams,
            "best": summary.best if summary else _best(ranking, board),
            "usage": totals,
            "usage_by_site": by_site,
            "usage_by_model": by_model,
        }
    )


# -- reading -------------------------------------------------------------------------------


def usage_breakdown(
    conn: Conn, execution_id: str
) -> tuple[UsageTotals, dict[str, UsageTotals], dict[str, UsageTotals]]:
    """An execution's usage in total, per call site and per model, in one query."""
    totals = UsageTotals()
    by_site: dict[str, UsageTotals] = {}
    by_model: dict[str, UsageTotals] = {}
    for row in rows.dicts(conn, sql.USAGE_BREAKDOWN, [execution_id]):
        if not row["all_sites"]:
            by_site[row["site"]] = usage_totals(row)
        elif not row["all_models"]:
            by_model[row["model"]] = usage_totals(row)
        else:
            totals = usage_totals(row)
    return totals, by_site, by_model


def read_execution(conn: Conn, execution_id: str) -> ExecutionView | None:
    """The view of one execution, None if the store has none by that id."""

    def read(conn: Conn) -> ExecutionView | None:
        found = rows.dicts(conn, f"{sql.EXECUTIONS_WITH_OWNER} WHERE e.execution_id = ?", [execution_id])
        if not found:
            return None
        members = {
            (team_id, number): rows.load(record)
            for team_id, number, record in conn.execute(sql.MEMBER_RECORDS, [execution_id]).fetchall()
        }
        return execution_view(
            rows.execution(found[0]),
            rows.leader_board_dicts(conn, execution_id),
            rows.round_statuses(conn, execution_id),
            rows.ranking(conn, execution_id),
            members,
            usage_breakdown(conn, execution_id),
        )

    return in_snapshot(conn, read)


def _overview(
    record: ExecutionRecord,
    summary: StoredSummary | None,
    leader: tuple[str, float] | None,
    last_round: int,
    tokens: int,
) -> ExecutionOverview:
    """A listing line: from the trusted `summary` if there is one, else from the rows so far."""
    if summary is not None:
        best = (summary.best.team_id, summary.best.score) if summary.best else None
        rounds_run, tokens, duration = (
            summary.rounds_run,
            summary.usage.total_tokens,
            summary.duration_seconds,
        )
    else:
        best, rounds_run, duration = leader, last_round, elapsed_seconds(record)
    return ExecutionOverview(
        execution_id=record.execution_id,
        status=record.status,
        user_prompt=record.user_prompt,
        started_at=record.started_at,
        duration_seconds=duration,
        best_team=best[0] if best else None,
        best_score=best[1] if best else None,
        rounds_run=rounds_run,
        total_tokens=tokens,
    )


def list_overviews(conn: Conn, limit: int) -> list[ExecutionOverview]:
    """The `limit` most recently started executions, newest first; the ones without a
    trusted summary get their figures in one query per table for all of them."""

    def read(conn: Conn) -> list[ExecutionOverview]:
        query = f"{sql.EXECUTIONS_WITH_OWNER} ORDER BY e.started_at DESC, e.execution_id DESC LIMIT ?"
        records = [rows.execution(row) for row in rows.dicts(conn, query, [limit])]
        summaries = {r.execution_id: stored_summary(r) for r in records}
        live = [eid for eid, summary in summaries.items() if summary is None]
        leaders: dict[str, tuple[str, float]] = {}
        last_rounds: dict[str, int] = {}
        tokens: dict[str, int] = {}
        if live:
            for eid, team_id, score in conn.execute(sql.LISTED_LEADERS, [live]).fetchall():
                leaders[eid] = (team_id, float(score))
            last_rounds = {eid: int(n) for eid, n in conn.execute(sql.LISTED_LAST_ROUNDS, [live]).fetchall()}
            tokens = {eid: int(n) for eid, n in conn.execute(sql.LISTED_TOKENS, [live]).fetchall()}
        return [
            _overview(
                r,
                summaries[r.execution_id],
                leaders.get(r.execution_id),
                last_rounds.get(r.execution_id, 0),
                tokens.get(r.execution_id, 0),
            )
            for r in records
        ]

    return in_snapshot(conn, read)
