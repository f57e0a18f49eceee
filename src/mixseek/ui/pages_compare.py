"""The compare page (`/compare?a=ID&b=ID`): two executions' figures side by side, then their teams by id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mixseek.report import formatting
from mixseek.storage.views import ExecutionOverview, ExecutionView, TeamView
from mixseek.text_safety import strip_controls
from mixseek.ui.pages_execution import execution_url, submission_url
from mixseek.ui.reads import db_path, execution_view, overviews
from mixseek.ui.templating import render

RECENT_EXECUTIONS = 200  # offered by the selects
OPTION_PROMPT_CHARS = 60


@dataclass(frozen=True)
class Choice:
    execution_id: str
    label: str


@dataclass(frozen=True)
class Fact:
    """One line of the side-by-side summary; `delta` is B minus A where both are numbers."""

    label: str
    a: str
    b: str
    delta: str | None = None


@dataclass(frozen=True)
class TeamPair:
    """A team of A, of B, or of both (the same `team_id`)."""

    team_id: str
    a: TeamView | None
    b: TeamView | None

    @property
    def delta(self) -> float | None:
        if self.a is None or self.b is None or self.a.best_score is None or self.b.best_score is None:
            return None
        return self.b.best_score - self.a.best_score


def choice(entry: ExecutionOverview) -> Choice:
    prompt = " ".join(strip_controls(entry.user_prompt).split())
    if len(prompt) > OPTION_PROMPT_CHARS:
        prompt = prompt[: OPTION_PROMPT_CHARS - 1].rstrip() + "…"
    started = entry.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
    return Choice(entry.execution_id, f"{entry.execution_id} · {entry.status} · {started} · {prompt}")


def _signed(value: float, fmt: str) -> str:
    """`value` with its sign; "±0" when it rounds to nothing."""
    text = format(value, fmt)
    if float(text.replace(",", "")) == 0:
        return "±0"
    return f"+{text}" if value > 0 else text


def _delta(a: float | None, b: float | None, fmt: str, unit: str = "") -> str | None:
    return None if a is None or b is None else _signed(b - a, fmt) + unit


def facts(a: ExecutionView, b: ExecutionView) -> list[Fact]:
    """The summary lines, each value formatted as the rest of the dashboard formats it."""

    def best(view: ExecutionView) -> str:
        if view.best is None:
            return "–"
        name = strip_controls(view.best.team_name)
        return f"{name} ({formatting.score(view.best.score)}, round {view.best.round_number})"

    def fact(
        label: str, value: Callable[[ExecutionView], Any], show: Callable[[Any], str], *fmt: str
    ) -> Fact:
        x, y = value(a), value(b)
        return Fact(label, show(x), show(y), _delta(x, y, *fmt))

    best_a, best_b = (view.best.score if view.best else None for view in (a, b))
    return [
        Fact("Status", a.status, b.status),
        fact("Teams", lambda v: len(v.teams), str, "d"),
        fact("Rounds run", lambda v: v.rounds_run, str, "d"),
        Fact("Best", best(a), best(b), _delta(best_a, best_b, ".1f")),
        fact("Tokens", lambda v: v.usage.total_tokens, formatting.tokens, ",d"),
        fact("Cost", lambda v: v.usage.cost, formatting.cost, ".4f"),
        fact("Duration", lambda v: v.duration_seconds, formatting.duration, ".1f", " s"),
    ]


def team_pairs(a: ExecutionView, b: ExecutionView) -> list[TeamPair]:
    """A's teams in A's order, each with B's of the same id; then the teams only B has."""
    in_b = {t.team_id: t for t in b.teams}
    in_a = {t.team_id for t in a.teams}
    pairs = [TeamPair(t.team_id, t, in_b.get(t.team_id)) for t in a.teams]
    return pairs + [TeamPair(t.team_id, None, t) for t in b.teams if t.team_id not in in_a]


async def compare_page(request: Request) -> Response:
    """A 404 page when `a` or `b` names an execution the store does not hold."""
    db = db_path(request)
    a_id = request.query_params.get("a", "").strip()
    b_id = request.query_params.get("b", "").strip()
    choices = [choice(e) for e in await overviews(db, RECENT_EXECUTIONS)]
    listed = {c.execution_id for c in choices}
    # an older execution named in the URL stays selectable
    choices += [Choice(i, i) for i in dict.fromkeys((a_id, b_id)) if i and i not in listed]
    context: dict[str, Any] = {"choices": choices, "a_id": a_id, "b_id": b_id, "a": None, "b": None}
    if a_id and b_id:
        a, b = await execution_view(db, a_id), await execution_view(db, b_id)
        context.update(
            a=a,
            b=b,
            a_url=execution_url(a.execution_id),
            b_url=execution_url(b.execution_id),
            swap_url=f"/compare?{urlencode({'a': b.execution_id, 'b': a.execution_id})}",
            facts=facts(a, b),
            pairs=team_pairs(a, b),
            best_url=lambda side, team: submission_url(
                (a, b)[side].execution_id, team.team_id, team.best_round
            ),
        )
    return render(request, "compare.html", context)


routes: list[BaseRoute] = [Route("/compare", compare_page, methods=["GET"], name="compare")]
