"""The dashboard's Jinja2 templates: autoescaped (no template marks model text safe), strict undefined."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from mixseek.report import formatting
from mixseek.text_safety import strip_controls

ENV = Environment(
    loader=PackageLoader("mixseek.ui", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _when(value: datetime | None) -> str:
    return "–" if value is None else value.astimezone().strftime("%Y-%m-%d %H:%M:%S")


ENV.filters.update(
    score=formatting.score,
    tokens=formatting.tokens,
    cost=formatting.cost,
    duration=formatting.duration,
    when=_when,
    clean=strip_controls,
)


def render(request: Request, name: str, context: dict[str, Any], *, status_code: int = 200) -> HTMLResponse:
    """A page: `request` and the CSRF token (`csrf_token`, for forms) are always in the context."""
    page = ENV.get_template(name).render(
        request=request, csrf_token=request.scope.get("mixseek.csrf_token", ""), **context
    )
    return HTMLResponse(page, status_code=status_code)


def render_fragment(name: str, context: dict[str, Any]) -> str:
    """A part of a page (a live update's HTML), rendered alone."""
    return ENV.get_template(name).render(**context)
