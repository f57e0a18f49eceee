"""The runs page (`/`): every execution, filtered and sorted by query, refreshed while one runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mixseek.errors import InputError
from mixseek.storage.schema import EXECUTION_STATUSES
from mixseek.storage.views import ExecutionOverview
from mixseek.text_safety import strip_controls
from mixseek.ui.reads import db_path, overviews, ui_settings
from mixseek.ui.templating import render

RUNS_LIMIT = 10_000  # the most recent executions listed (the page says when there are more)
PROMPT_CHARS = 120
REFRESH_SECONDS = 2

SORT_KEYS: dict[str, Callable[[ExecutionOverview], Any]] = {
    "started": lambda e: e.started_at,
    "score": lambda e: e.best_score,
    "cost": lambda e: e.cost,
    "duration": lambda e: e.duration_seconds,
}
ORDERS = ("desc", "asc")


@dataclass(frozen=True)
class RunsQuery:
    status: str = ""
    q: str = ""
    sort: str = "started"
    order: str = "desc"

    @classmethod
    def parse(cls, request: Request) -> RunsQuery:
        given = {key: request.query_params.get(key, value) for key, value in asdict(cls()).items()}
        query = cls(**{**given, "q": given["q"].strip()})
        _check("status", query.status, ("", *EXECUTION_STATUSES))
        _check("sort", query.sort, tuple(SORT_KEYS))
        _check("order", query.order, ORDERS)
        return query

    def url(self, **changes: str) -> str:
        """This page's URL with `changes`; parameters at their default are left out."""
        values, defaults = {**asdict(self), **changes}, asdict(RunsQuery())
        params = {k: v for k, v in values.items() if v != defaults[k]}
        return f"/?{urlencode(params)}" if params else "/"

    def matches(self, entry: ExecutionOverview) -> bool:
        if self.status and entry.status != self.status:
            return False
        needle = self.q.casefold()
        return not needle or needle in entry.user_prompt.casefold() or needle in entry.execution_id.casefold()

    def ordered(self, entries: list[ExecutionOverview]) -> list[ExecutionOverview]:
        """Sorted by the chosen column; executions without a value come last either way."""
        key = SORT_KEYS[self.sort]
        known = [e for e in entries if key(e) is not None]
        unknown = [e for e in entries if key(e) is None]
        return sorted(known, key=key, reverse=self.order == "desc") + unknown


def _check(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        choices = ", ".join(a for a in allowed if a)
        raise InputError(f"{name}: must be one of {choices} (got '{value}')")


@dataclass(frozen=True)
class RunRow:
    entry: ExecutionOverview
    href: str
    prompt: str
    prompt_full: str


def run_row(entry: ExecutionOverview) -> RunRow:
    full = strip_controls(entry.user_prompt)
    line = " ".join(full.split())
    short = line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1].rstrip() + "…"
    return RunRow(entry, f"/executions/{quote(entry.execution_id, safe='')}", short, full)


@dataclass(frozen=True)
class SortLink:
    label: str
    url: str
    active: str  # "asc", "desc", or "" when the table is sorted by another column


def sort_links(query: RunsQuery) -> dict[str, SortLink]:
    labels = {"started": "Started", "score": "Best score", "cost": "Cost", "duration": "Duration"}
    links = {}
    for key, label in labels.items():
        active = query.order if query.sort == key else ""
        order = "asc" if active == "desc" else "desc"
        links[key] = SortLink(label, query.url(sort=key, order=order), active)
    return links


async def runs_page(request: Request) -> Response:
    query = RunsQuery.parse(request)
    db = db_path(request)
    entries = await overviews(db, RUNS_LIMIT)
    counts = {status: sum(1 for e in entries if e.status == status) for status in EXECUTION_STATUSES}
    shown = query.ordered([e for e in entries if query.matches(e)])
    context = {
        "query": query,
        "rows": [run_row(e) for e in shown],
        "total": len(entries),
        "truncated": len(entries) >= RUNS_LIMIT,
        "limit": RUNS_LIMIT,
        "counts": counts,
        "sort_links": sort_links(query),
        "filtered": bool(query.status or query.q),
        "clear_url": query.url(status="", q=""),
        "refresh_url": query.url() if counts["running"] else None,
        "refresh_seconds": REFRESH_SECONDS,
        "workspace": str(ui_settings(request).workspace.root),
    }
    return render(request, "runs.html", context)


routes: list[BaseRoute] = [Route("/", runs_page, methods=["GET"], name="runs")]
