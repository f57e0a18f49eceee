"""One stored execution as a document (what `mixseek runs show` and `runs export` print).

The document is built from the store alone. A finished execution's summary
supplies what only the orchestrator knew (stop reason, each team's status);
a running one (no summary yet, or a stale one after `exec --resume`) gets
the same fields derived from the rows written so far.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from mixseek.orchestrator.models import BestSubmission
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import ExecutionRecord, LeaderBoardRow, RoundHistoryRecord, RoundStatusRecord
from mixseek.text_safety import strip_controls_in

Doc = dict[str, Any]


def is_live(record: ExecutionRecord) -> bool:
    """Whether the stored summary cannot be trusted: none yet, or the execution was resumed."""
    return record.summary is None or record.status == "running"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def elapsed_seconds(record: ExecutionRecord) -> float:
    end = record.ended_at if record.ended_at is not None else datetime.now(UTC)
    return round(max((end - record.started_at).total_seconds(), 0.0), 3)


def total_tokens(usage: dict[str, Any]) -> int:
    return int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)


def _best_of(ranking: list[dict[str, Any]], rows: list[LeaderBoardRow]) -> Doc | None:
    best = BestSubmission.from_board(ranking, rows)
    return best.model_dump() if best is not None else None


async def list_entry(store: AggregationStore, record: ExecutionRecord) -> Doc:
    """One line of `runs list`."""
    summary = None if is_live(record) else record.summary
    if summary is not None:
        best = summary.get("best")
        rounds_run = int(summary.get("rounds_run") or 0)
        tokens = total_tokens(summary.get("usage") or {})
        duration = float(summary.get("duration_seconds") or 0.0)
    else:
        eid = record.execution_id
        ranking = await store.get_leader_board_ranking(eid)
        top = ranking[0] if ranking else None
        best = {"team_id": top["team_id"], "score": top["max_score"]} if top else None
        rounds_run = max((s.round_number for s in await store.get_round_statuses(eid)), default=0)
        tokens = total_tokens(await store.get_usage_totals(eid))
        duration = elapsed_seconds(record)
    return {
        "execution_id": record.execution_id,
        "status": record.status,
        "user_prompt": record.user_prompt,
        "started_at": _iso(record.started_at),
        "duration_seconds": duration,
        "best_team": best["team_id"] if best else None,
        "best_score": best["score"] if best else None,
        "rounds_run": rounds_run,
        "total_tokens": tokens,
    }


def _metrics(details: dict[str, Any]) -> dict[str, Doc]:
    metrics: dict[str, Doc] = {}
    for name, value in details.items():
        if isinstance(value, dict):
            metrics[name] = {"score": value.get("score"), "comment": value.get("comment")}
        else:
            metrics[name] = {"score": value, "comment": None}
    return metrics


def _members(record: dict[str, Any] | None) -> Doc:
    submissions = list((record or {}).get("submissions") or [])
    succeeded = sum(1 for s in submissions if s.get("status") == "SUCCESS")
    return {"total": len(submissions), "succeeded": succeeded, "failed": len(submissions) - succeeded}


def _round(
    number: int,
    row: LeaderBoardRow | None,
    status: RoundStatusRecord | None,
    history: RoundHistoryRecord | None,
    *,
    full: bool,
) -> Doc:
    record = history.member_submissions_record if history is not None else None
    doc: Doc = {
        "round_number": number,
        "status": status.status if status is not None else "completed",
        "score": row.evaluation_score if row is not None else None,
        "is_final": row.is_final if row is not None else False,
        "started_at": _iso(status.started_at) if status is not None else None,
        "ended_at": _iso(status.ended_at) if status is not None else None,
        "metrics": _metrics(row.score_details) if row is not None else {},
        "feedback": row.evaluation_feedback if row is not None else None,
        "judgment": {
            "should_continue": status.should_continue if status else None,
            "exit_reason": status.exit_reason if status else None,
            "reasoning": status.judgment_reasoning if status else None,
            "confidence": status.judgment_confidence if status else None,
        },
        "members": _members(record),
        "error": status.error_message if status is not None else None,
    }
    if full:
        doc["submission"] = row.submission_content if row is not None else None
        doc["submission_format"] = row.submission_format if row is not None else None
        doc["member_submissions"] = list((record or {}).get("submissions") or [])
        doc["usage"] = row.usage_info if row is not None else None
    return doc


TEAM_FIELDS = ("status", "rounds_completed", "best_round", "best_score", "exit_reason", "error")


def _derived_team(rounds: list[Doc], execution_status: str) -> Doc:
    """A team's standing from its rounds alone (no summary yet)."""
    scored = [r for r in rounds if r["score"] is not None]
    best = max(scored, key=lambda r: (r["score"], r["round_number"])) if scored else None
    last = rounds[-1] if rounds else None
    failed = last is not None and last["status"] in ("failed", "timeout")
    stopped = last is not None and last["judgment"]["should_continue"] is False
    return {
        "status": "failed" if failed else "stopped" if stopped else execution_status,
        "rounds_completed": len(scored),
        "best_round": best["round_number"] if best else None,
        "best_score": best["score"] if best else None,
        "exit_reason": last["judgment"]["exit_reason"] if stopped and last else None,
        "error": last["error"] if failed and last else None,
    }


async def run_document(store: AggregationStore, record: ExecutionRecord, *, full: bool = False) -> Doc:
    """Everything stored about one execution; `full` adds every submission and member answer."""
    eid = record.execution_id
    rows = await store.get_leader_board(eid)
    statuses = await store.get_round_statuses(eid)
    ranking = await store.get_leader_board_ranking(eid)
    histories = {(h.team_id, h.round_number): h for h in await store.get_round_histories(eid)}
    summary = None if is_live(record) else record.summary

    board = {(r.team_id, r.round_number): r for r in rows}
    state = {(s.team_id, s.round_number): s for s in statuses}
    names = {r.team_id: r.team_name for r in rows}
    summary_teams = {t["team_id"]: t for t in (summary or {}).get("teams", [])}
    names.update({tid: t["team_name"] for tid, t in summary_teams.items()})
    order = [e["team_id"] for e in ranking]
    for team_id in [*summary_teams, *sorted({tid for tid, _ in state})]:
        if team_id not in order:
            order.append(team_id)

    teams: list[Doc] = []
    for position, team_id in enumerate(order, start=1):
        keys = sorted({k for k in (*board, *state) if k[0] == team_id}, key=lambda k: k[1])
        rounds = [
            _round(k[1], board.get(k), state.get(k), histories.get(k) if k in board else None, full=full)
            for k in keys
        ]
        known = summary_teams.get(team_id)
        standing = (
            {key: known.get(key) for key in TEAM_FIELDS}
            if known is not None
            else _derived_team(rounds, record.status)
        )
        teams.append(
            {
                "team_id": team_id,
                "team_name": names.get(team_id, team_id),
                "position": position if position <= len(ranking) else None,
                **standing,
                "rounds": rounds,
            }
        )

    if summary:
        duration = float(summary.get("duration_seconds") or 0.0)
        rounds_run = int(summary.get("rounds_run") or 0)
    else:
        duration = elapsed_seconds(record)
        rounds_run = max((number for _, number in (*board, *state)), default=0)
    return {
        "execution_id": eid,
        "user_prompt": record.user_prompt,
        "status": record.status,
        "stop_reason": summary.get("stop_reason") if summary else None,
        "stop_detail": summary.get("stop_detail") if summary else None,
        "degraded_reasons": list(summary.get("degraded_reasons") or []) if summary else [],
        "started_at": _iso(record.started_at),
        "ended_at": _iso(record.ended_at),
        "duration_seconds": duration,
        "rounds_run": rounds_run,
        "leaderboard": ranking,
        "teams": teams,
        "best": summary.get("best") if summary else _best_of(ranking, rows),
        "usage": await store.get_usage_totals(eid),
        "usage_by_site": await store.get_usage_by_site(eid),
    }


# -- markdown ------------------------------------------------------------------------


def fenced(content: str, info: str = "") -> str:
    """`content` in a backtick fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{content}\n{fence}"


def cell(value: object) -> str:
    """A Markdown table cell: pipes escaped, line breaks kept as <br>."""
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>")


def score_text(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def judgment_text(judgment: Doc) -> str:
    decision = judgment["should_continue"]
    if decision is None:
        return "none"
    text = "continue" if decision else "stop"
    details = [judgment["exit_reason"]] if judgment["exit_reason"] else []
    if judgment["confidence"] is not None:
        details.append(f"confidence {judgment['confidence']:.2f}")
    if details:
        text += f" ({', '.join(details)})"
    return text + (f": {judgment['reasoning']}" if judgment["reasoning"] else "")


def one_line(text: object) -> str:
    """`text` with every run of whitespace, line breaks included, as one space."""
    return " ".join(str(text).split()) if text is not None else ""


def stop_text(doc: Doc) -> str:
    """The suffix after a status, like " (stop_reason: stop_detail)", and why the run is degraded."""
    text = ""
    if doc["stop_reason"]:
        text = f" ({doc['stop_reason']}{': ' + doc['stop_detail'] if doc['stop_detail'] else ''})"
    reasons = doc.get("degraded_reasons") or []
    return text + (f" — degraded: {'; '.join(reasons)}" if reasons else "")


def usage_text(usage: Doc) -> str:
    """Usage totals as "N requests, X input + Y output tokens"."""
    return (
        f"{usage['requests']} requests, {usage['input_tokens']} input + "
        f"{usage['output_tokens']} output tokens"
    )


def _table(headers: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def leaderboard_rows(ranking: list[dict[str, Any]]) -> list[list[object]]:
    return [
        [i, f"{e['team_name']} ({e['team_id']})", score_text(e["max_score"]), e["total_rounds"]]
        for i, e in enumerate(ranking, start=1)
    ]


def markdown_report(doc: Doc) -> str:
    """A readable report of a `full` document, without the control characters of model text."""
    doc = strip_controls_in(doc)
    prompt: str = doc["user_prompt"]
    first = prompt.strip().splitlines()[0] if prompt.strip() else ""
    title = first if len(first) <= 80 else first[:79] + "…"
    out = [f"# mixseek run: {title}", ""]
    if title != prompt:
        out += [fenced(prompt), ""]
    out += [
        f"- execution: `{doc['execution_id']}`",
        f"- status: {doc['status']}{stop_text(doc)}",
        f"- started: {doc['started_at']}",
        f"- duration: {doc['duration_seconds']:.1f} s",
        f"- rounds: {doc['rounds_run']}",
        f"- usage: {usage_text(doc['usage'])}",
        "",
        "## Leaderboard",
        "",
        *_table(["#", "team", "best score", "rounds"], leaderboard_rows(doc["leaderboard"])),
        "",
    ]
    best = doc["best"]
    if best:
        out += [
            "## Winning submission",
            "",
            f"{best['team_name']} ({best['team_id']}), round {best['round_number']}, "
            f"score {score_text(best['score'])}/100",
            "",
            fenced(best["content"]),
            "",
        ]
    for team in doc["teams"]:
        out += [f"## Team {team['team_name']} ({team['team_id']})", ""]
        out += [f"- status: {team['status']}", f"- rounds scored: {team['rounds_completed']}"]
        if team["best_round"] is not None:
            out.append(f"- best round: {team['best_round']} ({score_text(team['best_score'])})")
        out += [f"- stopped because: {team['exit_reason']}"] if team["exit_reason"] else []
        out += [f"- error: {one_line(team['error'])}"] if team["error"] else []
        out.append("")
        for r in team["rounds"]:
            final = " (final)" if r["is_final"] else ""
            out += [f"### Round {r['round_number']}: {score_text(r['score'])}/100{final}", ""]
            if r["status"] != "completed":
                out += [f"status: {r['status']}{': ' + one_line(r['error']) if r['error'] else ''}", ""]
            if r["metrics"]:
                rows = [[m, score_text(v["score"]), v["comment"]] for m, v in r["metrics"].items()]
                out += [*_table(["metric", "score", "comment"], rows), ""]
            members = r["members"]
            out += [
                f"- judgment: {one_line(judgment_text(r['judgment']))}",
                f"- members: {members['succeeded']} succeeded, {members['failed']} failed",
                "",
            ]
            if r.get("submission") is not None:
                out += ["Submission:", "", fenced(r["submission"]), ""]
    out += ["## Usage by call site", ""]
    site_rows: list[list[object]] = [
        [site, u["requests"], u["input_tokens"], u["output_tokens"]]
        for site, u in doc["usage_by_site"].items()
    ]
    out += _table(["site", "requests", "input tokens", "output tokens"], site_rows)
    return "\n".join(out) + "\n"
