"""The submission page: one team's round in full; model text is sanitised or escaped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mixseek.report.content import round_seconds, round_tokens
from mixseek.report.diff import TextDiff, diff_texts
from mixseek.report.markdown import render_markdown
from mixseek.report.transcript import Transcript, read_transcript
from mixseek.runs import UnknownExecution
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundHistoryRecord, RoundKey
from mixseek.storage.views import ExecutionView, MemberAnswer, RoundView, TeamView
from mixseek.ui.pages_execution import execution_url, submission_url
from mixseek.ui.reads import db_path, read_store
from mixseek.ui.templating import render

USAGE_PARTS = ("team", "leader", "members", "evaluation", "judgment")  # listed first, in this order


@dataclass(frozen=True)
class MemberRow:
    answer: MemberAnswer
    content: Markup
    input_tokens: int | None
    output_tokens: int | None

    @property
    def total_tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)


@dataclass(frozen=True)
class UsageRow:
    name: str
    requests: int | None
    input_tokens: int | None
    output_tokens: int | None


@dataclass(frozen=True)
class Comparison:
    """The diff against the team's previous round that has a submission."""

    previous_round: int
    diff: TextDiff


def _count(usage: Any, key: str) -> int | None:
    value = usage.get(key) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def member_row(answer: MemberAnswer) -> MemberRow:
    return MemberRow(
        answer=answer,
        content=render_markdown(answer.content),
        input_tokens=_count(answer.usage, "input_tokens"),
        output_tokens=_count(answer.usage, "output_tokens"),
    )


def usage_rows(usage: dict[str, Any] | None) -> tuple[list[UsageRow], list[UsageRow]]:
    """The round's usage by part (team, leader, members, evaluation, ...) and by call site."""
    usage = usage or {}

    def row(name: str, part: Any) -> UsageRow:
        return UsageRow(
            name, _count(part, "requests"), _count(part, "input_tokens"), _count(part, "output_tokens")
        )

    names = [n for n in USAGE_PARTS if n in usage] + sorted(
        n for n in usage if n not in USAGE_PARTS and n != "by_site"
    )
    parts = [row(n, usage[n]) for n in names if isinstance(usage[n], dict)]
    by_site = usage.get("by_site")
    sites = (
        [row(n, p) for n, p in by_site.items() if isinstance(p, dict)] if isinstance(by_site, dict) else []
    )
    return parts, sites


def comparison(team: TeamView, round_view: RoundView) -> Comparison | None:
    """The diff from the team's latest earlier round with a submission, if both have one."""
    if round_view.submission is None:
        return None
    earlier = [
        (r.round_number, r.submission)
        for r in team.rounds
        if r.round_number < round_view.round_number and r.submission is not None
    ]
    if not earlier:
        return None
    number, text = max(earlier)
    return Comparison(number, diff_texts(text, round_view.submission))


def find_round(view: ExecutionView, team_id: str, round_number: int) -> tuple[TeamView, RoundView]:
    team = next((t for t in view.teams if t.team_id == team_id), None)
    if team is None:
        raise HTTPException(404, f"no team '{team_id}' in execution '{view.execution_id}'")
    found = next((r for r in team.rounds if r.round_number == round_number), None)
    if found is None:
        raise HTTPException(
            404, f"team '{team_id}' has no round {round_number} in execution '{view.execution_id}'"
        )
    return team, found


def page_context(
    view: ExecutionView, team: TeamView, round_view: RoundView, history: RoundHistoryRecord | None
) -> dict[str, Any]:
    numbers = [r.round_number for r in team.rounds]
    earlier = [n for n in numbers if n < round_view.round_number]
    later = [n for n in numbers if n > round_view.round_number]
    members = [member_row(a) for a in round_view.member_submissions]
    parts, sites = usage_rows(round_view.usage)
    transcript: Transcript = read_transcript(history.message_history if history else None)

    def submission_link(round_number: int) -> str:
        return submission_url(view.execution_id, team.team_id, round_number)

    return {
        "view": view,
        "team": team,
        "round": round_view,
        "execution_url": execution_url(view.execution_id),
        "submission_link": submission_link,
        "previous_url": submission_link(max(earlier)) if earlier else None,
        "next_url": submission_link(min(later)) if later else None,
        "previous_number": max(earlier) if earlier else None,
        "next_number": min(later) if later else None,
        "submission_html": render_markdown(round_view.submission)
        if round_view.submission is not None
        else None,
        "metrics": [
            (name, metric.score, render_markdown(metric.comment) if metric.comment else None)
            for name, metric in round_view.metrics.items()
        ],
        "reasoning_html": render_markdown(round_view.judgment.reasoning)
        if round_view.judgment.reasoning
        else None,
        "members": members,
        "show_steps": team.kind == "workflow" or any(m.answer.step_id for m in members),
        "usage_parts": parts,
        "usage_sites": sites,
        "round_tokens": round_tokens(round_view),
        "round_seconds": round_seconds(round_view),
        "transcript": transcript,
        "comparison": comparison(team, round_view),
    }


async def submission_page(request: Request) -> Response:
    """A 404 page for an execution, team or round the store does not hold."""
    execution_id: str = request.path_params["execution_id"]
    team_id: str = request.path_params["team_id"]
    round_number: int = request.path_params["round_number"]
    db = db_path(request)

    async def read(store: AggregationStore) -> tuple[ExecutionView | None, RoundHistoryRecord | None]:
        view = await store.get_execution_view(execution_id)
        if view is None:
            return None, None
        return view, await store.get_round_history(RoundKey(execution_id, team_id, round_number))

    nothing: tuple[ExecutionView | None, RoundHistoryRecord | None] = (None, None)
    view, history = await read_store(db, read, nothing)
    if view is None:
        raise UnknownExecution(f"no execution '{execution_id}' in {db}")
    team, round_view = find_round(view, team_id, round_number)
    return render(request, "submission.html", page_context(view, team, round_view, history))


routes: list[BaseRoute] = [
    Route(
        "/executions/{execution_id}/teams/{team_id}/rounds/{round_number:int}",
        submission_page,
        methods=["GET"],
        name="submission",
    )
]
