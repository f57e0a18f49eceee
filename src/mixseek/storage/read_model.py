"""Building the read model (`storage.views`) from the store's tables, one snapshot per read; a running (or
resumed) execution gets what only a finished one's summary says derived from its rows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import duckdb

import mixseek.storage._rows as rows
import mixseek.storage._sql as sql
from mixseek.config.evaluator import stored_scale
from mixseek.llm.demo_model import mentions_demo_model
from mixseek.storage._pairwise import read_pairwise
from mixseek.storage.agreement import disagreement_threshold, panel_agreement
from mixseek.storage.listing import duration_seconds, in_snapshot, stored_summary
from mixseek.storage.models import ExecutionRecord, ExecutionStatus, RoundStatusRecord
from mixseek.storage.overview import StoredSummary
from mixseek.storage.views import BestSubmission, ExecutionProgress, ExecutionView, RankingEntry, UsageTotals

Conn = duckdb.DuckDBPyConnection
Key = tuple[str, int]  # (team_id, round_number)


class _OutlineStatus(NamedTuple):
    """A round_status row as `sql.OUTLINE_STATUSES` reads it."""

    team_id: str
    round_number: int
    status: str
    started_at: datetime | None
    ended_at: datetime | None
    should_continue: bool | None
    judgment_reasoning: str | None
    judgment_confidence: float | None
    exit_reason: str | None
    error_message: str | None


StatusRow = RoundStatusRecord | _OutlineStatus
"""A round_status row as the read model takes it."""


def usage_totals(row: Mapping[str, Any]) -> UsageTotals:
    cost = row.get("cost")
    return UsageTotals(
        requests=int(row.get("requests") or 0),
        input_tokens=int(row.get("input_tokens") or 0),
        output_tokens=int(row.get("output_tokens") or 0),
        cost=float(cost) if cost is not None else None,
    )


# the view is assembled as plain data, validated once: cheaper than building each round's models
Doc = dict[str, Any]


def _metrics(details: Mapping[str, Any]) -> Doc:
    """score_details as stored: per metric `{"score", "comment", ...}` or (older rows) the bare score."""
    return {
        name: (
            {
                "score": value.get("score"),
                "comment": value.get("comment"),
                "judges": value.get("judges"),
                "aggregate": value.get("aggregate"),
            }
            if isinstance(value, Mapping)
            else {"score": value, "comment": None}
        )
        for name, value in details.items()
    }


def _answers(record: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The answers of a stored member submissions record."""
    submissions = (record or {}).get("submissions") or []
    return [s for s in submissions if isinstance(s, Mapping)]


def _round(
    number: int,
    row: Mapping[str, Any] | None,
    status: StatusRow | None,
    answers: list[Mapping[str, Any]],
    counts: tuple[int, int] | None = None,
) -> Doc:
    """A round (`RoundView`) from its rows; `counts` (members, succeeded) where `answers` are partial."""
    total, succeeded = counts or (len(answers), sum(1 for a in answers if a.get("status") == "SUCCESS"))
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
        "members": {"total": total, "succeeded": succeeded, "failed": total - succeeded},
        "error": status.error_message if status is not None else None,
        "submission": row["submission_content"] if row is not None else None,
        "submission_format": row["submission_format"] if row is not None else None,
        "member_submissions": answers,
        "usage": row["usage_info"] if row is not None else None,
    }


def derived_standing(rounds: Sequence[Doc], status: ExecutionStatus) -> Doc:
    """A team's standing from its rounds alone: failed or stopped as its last round, else the execution's."""
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


def stored_standing(standing: Doc) -> Doc:
    """A team's standing as a summary stored it (an older `completed`, exit `interrupted`: interrupted)."""
    if standing["status"] == "completed" and standing["exit_reason"] == "interrupted":
        return {**standing, "status": "interrupted", "exit_reason": None}
    return standing


def config_team_names(config: Mapping[str, Any]) -> dict[str, str]:
    """The teams' names in the config snapshot, so a team has its name before its first round."""
    teams = config.get("teams")
    if not isinstance(teams, Mapping):
        return {}
    return {
        str(team_id): team["team_name"]
        for team_id, team in teams.items()
        if isinstance(team, Mapping) and isinstance(team.get("team_name"), str)
    }


def team_kind(config: Mapping[str, Any], team_id: str) -> str | None:
    """A team's kind from the config snapshot: `workflow`, else its member dispatch; None if unknown."""
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


def _teams(
    record: ExecutionRecord,
    summary: StoredSummary | None,
    scored: Mapping[Key, Mapping[str, Any]],
    statuses: Sequence[StatusRow],
    ranking: Sequence[RankingEntry],
    members: Mapping[Key, Mapping[str, Any] | None],
    member_counts: Mapping[Key, tuple[int, int]] | None,
) -> list[Doc]:
    """Each team (`TeamView`), ranked ones first, with its standing and rounds (see `execution_view`)."""
    state = {(s.team_id, s.round_number): s for s in statuses}
    names = {**config_team_names(record.config), **{r["team_id"]: r["team_name"] for r in scored.values()}}
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
            counts = member_counts.get(key) if member_counts is not None and row is not None else None
            rounds.append(_round(number, row, state.get(key), answers, counts))
        standing = known.get(team_id)
        teams.append(
            {
                "team_id": team_id,
                "team_name": names.get(team_id, team_id),
                "kind": team_kind(record.config, team_id),
                "position": position if position <= len(ranking) else None,
                **(
                    stored_standing(standing.model_dump(exclude={"team_id", "team_name"}))
                    if standing is not None
                    else derived_standing(rounds, record.status)
                ),
                "rounds": rounds,
            }
        )
        for r in rounds:
            if teams[-1]["status"] in ("running", "interrupted"):
                r["is_final"] = False  # its rounds go on (a summary of an earlier release marked one final)
            if record.status == "interrupted" and r["status"] == "running":
                r["status"] = "interrupted"  # cut off by the interruption, not running any more
    return teams


def execution_view(
    record: ExecutionRecord,
    board: Sequence[Mapping[str, Any]],
    statuses: Sequence[StatusRow],
    ranking: Sequence[RankingEntry],
    members: Mapping[Key, Mapping[str, Any] | None],
    usage: tuple[UsageTotals, dict[str, UsageTotals], dict[str, UsageTotals]],
    *,
    member_counts: Mapping[Key, tuple[int, int]] | None = None,
    best_from: Sequence[Mapping[str, Any]] | None = None,
) -> ExecutionView:
    """One execution's view from its rows (`board`: leader_board dicts; `members`: each round's member
    record); an outline adds `member_counts` and `best_from`, the rows the best is taken from."""
    summary = stored_summary(record)
    scored = {(r["team_id"], r["round_number"]): r for r in board}
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
            "duration_seconds": duration_seconds(record, summary),
            "rounds_run": summary.rounds_run if summary else max((n for _, n in scored), default=0),
            "leaderboard": ranking,
            "teams": _teams(record, summary, scored, statuses, ranking, members, member_counts),
            "best": summary.best if summary else _best(ranking, board if best_from is None else best_from),
            "usage": totals,
            "usage_by_site": by_site,
            "usage_by_model": by_model,
            "agreement": panel_agreement(board, disagreement_threshold(record.config)),
            "demo_model": mentions_demo_model(record.config),
            "scale": str(stored_scale(record.config.get("evaluator"))),
        }
    )


def usage_breakdown(
    conn: Conn, execution_id: str
) -> tuple[UsageTotals, dict[str, UsageTotals], dict[str, UsageTotals]]:
    """An execution's usage in total, per call site and per model (each by name), in one query."""
    parts = rows.dicts(conn, sql.USAGE_BREAKDOWN, [execution_id])
    by_site: dict[str, list[dict[str, Any]]] = {}
    by_model: dict[str, list[dict[str, Any]]] = {}
    for row in parts:
        by_site.setdefault(row["site"], []).append(row)
        by_model.setdefault(row["model"], []).append(row)
    return (
        _summed(parts),
        {site: _summed(by_site[site]) for site in sorted(by_site)},
        {model: _summed(by_model[model]) for model in sorted(by_model)},
    )


def _summed(parts: Sequence[Mapping[str, Any]]) -> UsageTotals:
    """Usage parts added up; a cost where any part has one (as SQL's sum, which skips NULLs)."""
    costs = [part["cost"] for part in parts if part["cost"] is not None]
    return usage_totals(
        {
            "requests": sum(part["requests"] or 0 for part in parts),
            "input_tokens": sum(part["input_tokens"] or 0 for part in parts),
            "output_tokens": sum(part["output_tokens"] or 0 for part in parts),
            "cost": sum(costs) if costs else None,
        }
    )


def read_execution(conn: Conn, execution_id: str) -> ExecutionView | None:
    """The view of one execution, None if the store has none by that id."""

    def read(conn: Conn) -> ExecutionView | None:
        record = _execution_record(conn, execution_id)
        if record is None:
            return None
        members = {
            (team_id, number): rows.load(answers)
            for team_id, number, answers in conn.execute(sql.MEMBER_RECORDS, [execution_id]).fetchall()
        }
        board, statuses = rows.leader_board_dicts(conn, execution_id), rows.round_statuses(conn, execution_id)
        ranking = rows.ranking(conn, execution_id)
        view = execution_view(record, board, statuses, ranking, members, usage_breakdown(conn, execution_id))
        return _with_pairwise(conn, record, view)

    return in_snapshot(conn, read)


def _outline_members(
    statuses: list[str] | None, record: str | None
) -> tuple[dict[str, Any], tuple[int, int]]:
    """A round's member record in an outline: only the failed answers, and (members, succeeded)."""
    failed = [a for a in _answers(rows.load(record)) if a.get("status") != "SUCCESS"] if record else []
    statuses = statuses or []
    return {"submissions": failed}, (len(statuses), statuses.count("SUCCESS"))


def _execution_record(conn: Conn, execution_id: str) -> ExecutionRecord | None:
    cursor = conn.execute(sql.EXECUTION_WITH_OWNER, {"id": execution_id})
    names = [column[0] for column in cursor.description or ()]
    found = cursor.fetchone()
    return rows.execution(dict(zip(names, found, strict=True))) if found else None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _from_epoch(microseconds: int | None) -> datetime | None:
    return None if microseconds is None else _EPOCH + timedelta(microseconds=microseconds)


def _outline_statuses(conn: Conn, execution_id: str) -> list[_OutlineStatus]:
    """`rows.round_statuses`, faster: the store's own rows taken without validation."""
    return [
        _OutlineStatus(team_id, number, status, _from_epoch(started), _from_epoch(ended), *judged)
        for team_id, number, status, started, ended, *judged in conn.execute(
            sql.OUTLINE_STATUSES, [execution_id]
        ).fetchall()
    ]


def _outline(conn: Conn, record: ExecutionRecord) -> ExecutionView:
    execution_id = record.execution_id
    ranking = rows.ranking(conn, execution_id)
    board = rows.dicts(conn, sql.OUTLINE_BOARD, [execution_id])
    # one parse for every row's usage: a few hundred small documents parse faster as one
    usages = json.loads("[" + ",".join(row["usage_info"] for row in board) + "]")
    for row, usage in zip(board, usages, strict=True):
        row.update(
            usage_info=usage,
            score_details={},
            evaluation_feedback=None,
            submission_content=None,
            submission_format=None,
        )
    best_from = []
    if ranking:
        best_from = rows.dicts(conn, sql.TEAM_BOARD, [execution_id, ranking[0].team_id])
        for row in best_from:
            row.update(score_details=rows.load(row["score_details"]) or {}, usage_info=None)
    members: dict[Key, dict[str, Any]] = {}
    counts: dict[Key, tuple[int, int]] = {}
    for team_id, number, statuses, answers in conn.execute(sql.OUTLINE_MEMBERS, [execution_id]).fetchall():
        members[team_id, number], counts[team_id, number] = _outline_members(statuses, answers)
    view = execution_view(
        record,
        board,
        _outline_statuses(conn, execution_id),
        ranking,
        members,
        usage_breakdown(conn, execution_id),
        member_counts=counts,
        best_from=best_from,
    )
    return _with_pairwise(conn, record, view)


def _with_pairwise(conn: Conn, record: ExecutionRecord, view: ExecutionView) -> ExecutionView:
    """`view` with the execution's pairwise stage, when it had one (the dashboard shows its judge's bias)."""
    pairwise = read_pairwise(conn, record)
    return view if pairwise is None else view.model_copy(update={"pairwise": pairwise})


def _progress(conn: Conn, record: ExecutionRecord) -> ExecutionProgress:
    marks = conn.execute(sql.PROGRESS_MARKS, {"id": record.execution_id}).fetchone() or ()
    return ExecutionProgress(
        status=record.status, ended_at=record.ended_at, marks=(int(record.summary is not None), *marks)
    )


def read_execution_outline(conn: Conn, execution_id: str) -> ExecutionView | None:
    """One execution's view without the texts only a round's page shows (half `read_execution`'s time)."""

    def read(conn: Conn) -> ExecutionView | None:
        record = _execution_record(conn, execution_id)
        return _outline(conn, record) if record is not None else None

    return in_snapshot(conn, read)


def read_outline_since(
    conn: Conn, execution_id: str, known: ExecutionProgress | None
) -> tuple[ExecutionProgress, ExecutionView | None] | None:
    """An execution's progress, and its outline unless the progress is still `known`; None if unknown."""

    def read(conn: Conn) -> tuple[ExecutionProgress, ExecutionView | None] | None:
        record = _execution_record(conn, execution_id)
        if record is None:
            return None
        progress = _progress(conn, record)
        return progress, None if progress == known else _outline(conn, record)

    return in_snapshot(conn, read)
