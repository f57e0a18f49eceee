"""The execution page, in sections (one template each) that the live stream (`ui.live`) resends alike;
the sections are kept as rendered with the execution's progress, so a reload checks one cheap query."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mixseek.report import content
from mixseek.report.charts import score_chart_svg
from mixseek.report.markdown import render_markdown
from mixseek.report.pairwise import STANDING_HEADERS, bias_lines, pairwise_tables
from mixseek.runs import UnknownExecution
from mixseek.storage.views import ExecutionProgress, ExecutionView
from mixseek.ui.execution_tables import grid_lines, judgment_rows
from mixseek.ui.pending import launch_page
from mixseek.ui.reads import db_path, read_store
from mixseek.ui.templating import render, render_fragment

HEADER = ("header", "execution_header.html")
# the sections after the header: the live stream's event names and their templates
SECTIONS: dict[str, str] = {
    "best": "execution_best.html",
    "grid": "execution_grid.html",
    "leaderboard": "execution_leaderboard.html",
    "chart": "execution_chart.html",
    "judgments": "execution_judgments.html",
    "usage": "execution_usage.html",
    "failures": "execution_failures.html",
}
KEPT_EXECUTIONS = 8  # renderings a dashboard keeps (the big one, 64 × 10, is under 1 MB)


def execution_url(execution_id: str) -> str:
    return f"/executions/{quote(execution_id, safe='')}"


def submission_url(execution_id: str, team_id: str, round_number: int) -> str:
    return f"{execution_url(execution_id)}/teams/{quote(team_id, safe='')}/rounds/{round_number}"


def page_context(view: ExecutionView) -> dict[str, Any]:
    """What the header and the page around the sections read."""
    base = execution_url(view.execution_id)
    teams = {team.team_id: f"{base}/teams/{quote(team.team_id, safe='')}" for team in view.teams}

    def round_url(team_id: str, round_number: int) -> str:
        if team_id in teams:
            return f"{teams[team_id]}/rounds/{round_number}"
        return submission_url(view.execution_id, team_id, round_number)

    return {
        "view": view,
        "live": view.status == "running",
        "execution_url": base,
        "stream_url": f"{base}/stream",
        "submission_url": round_url,
        "judge_bias": bias_lines(view.pairwise) if view.pairwise is not None else [],
        "pairwise_headers": STANDING_HEADERS,
        "pairwise_tables": pairwise_tables(view.pairwise) if view.pairwise is not None else [],
    }


def render_sections(view: ExecutionView) -> dict[str, Markup]:
    """The sections after the header, as HTML by their event names."""
    context = page_context(view)
    context["round_numbers"], context["grid_lines"] = grid_lines(view, context["submission_url"])
    context.update(
        best_html=render_markdown(view.best.content) if view.best is not None else None,
        chart=score_chart_svg(view),
        judgment_rows=judgment_rows(view),
        failures=content.failures(view),
    )
    # our own templates' output, every value in it escaped: safe to insert as it is
    return {name: Markup(render_fragment(template, context)) for name, template in SECTIONS.items()}


def render_header(view: ExecutionView, csrf_token: str) -> str:
    """The header section (status, prompt, figures, the Stop/Resume form with `csrf_token`)."""
    return render_fragment(HEADER[1], {**page_context(view), "csrf_token": csrf_token})


@dataclass(frozen=True)
class Rendering:
    progress: ExecutionProgress
    view: ExecutionView
    sections: dict[str, Markup]
    read_at: float = field(default_factory=time.monotonic)  # when `view` was read

    def now(self) -> Rendering:
        """This rendering as of now: a running execution's duration grows while its rows stay."""
        if self.view.status != "running":
            return self
        now = time.monotonic()
        duration = round(self.view.duration_seconds + max(now - self.read_at, 0.0), 3)
        return replace(self, view=self.view.model_copy(update={"duration_seconds": duration}), read_at=now)


class Renderings:
    """The latest rendering of the executions a dashboard showed lately, by store file and id."""

    def __init__(self, size: int = KEPT_EXECUTIONS) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[Path, str], Rendering] = OrderedDict()

    def latest(self, db: Path, execution_id: str) -> Rendering | None:
        return self._kept.get((db, execution_id))

    def keep(self, db: Path, execution_id: str, rendering: Rendering) -> None:
        key = (db, execution_id)
        self._kept[key] = rendering
        self._kept.move_to_end(key)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def clear(self) -> None:
        self._kept.clear()


def renderings(request: Request) -> Renderings:
    state = request.app.state
    if not hasattr(state, "execution_renderings"):
        state.execution_renderings = Renderings()
    return cast(Renderings, state.execution_renderings)


async def current_rendering(db: Path, execution_id: str, kept: Renderings) -> Rendering | None:
    """The execution's sections now: kept while its progress is the same, else rendered anew."""
    latest = kept.latest(db, execution_id)
    known = latest.progress if latest is not None else None
    found = await read_store(db, lambda store: store.get_execution_outline_since(execution_id, known), None)
    if found is None:
        return None
    progress, view = found
    if view is None and latest is not None:
        return latest.now()
    assert view is not None  # the store reads the outline for any progress but `known`
    rendering = Rendering(progress, view, await asyncio.to_thread(render_sections, view))
    kept.keep(db, execution_id, rendering)
    return rendering


async def execution_page(request: Request) -> Response:
    """`/executions/{execution_id}`: a 404 for an unknown id (unless its process just started)."""
    db, execution_id = db_path(request), request.path_params["execution_id"]
    rendering = await current_rendering(db, execution_id, renderings(request))
    if rendering is None:
        pending = await launch_page(request, execution_id)
        if pending is None:
            raise UnknownExecution(f"no execution '{execution_id}' in {db}")
        return pending
    context = {**page_context(rendering.view), "sections": rendering.sections}
    return render(request, "execution.html", context)


routes: list[BaseRoute] = [Route("/executions/{execution_id}", execution_page, methods=["GET"])]
