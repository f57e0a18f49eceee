"""The dashboard's ASGI app: routes, static files, error pages, security; a failure is one escaped line."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import cast

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from mixseek.errors import InputError
from mixseek.runs import UnknownExecution
from mixseek.storage.errors import StorageError, StoreBusyError
from mixseek.ui.security import SecurityMiddleware
from mixseek.ui.settings import UISettings
from mixseek.ui.templating import render

# the page modules whose `routes` the dashboard serves
ROUTE_MODULES: tuple[str, ...] = (
    "mixseek.ui.pages_runs",
    "mixseek.ui.pages_execution",
    "mixseek.ui.live",
    "mixseek.ui.pages_submission",
    "mixseek.ui.pages_compare",
    "mixseek.ui.actions",
)

STATIC_DIR = Path(__file__).parent / "static"
FAVICON = STATIC_DIR / "favicon.svg"


def error_page(request: Request, status: int, message: str) -> Response:
    """A page saying what went wrong in one line (escaped like everything else)."""
    title = f"{status} {HTTPStatus(status).phrase}"
    return render(request, "error.html", {"title": title, "message": message}, status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    error = cast(HTTPException, exc)
    message = error.detail
    if message == HTTPStatus(error.status_code).phrase:  # Starlette's own: say what was asked
        message = f"{message}: {request.method} {request.url.path}"
    response = error_page(request, error.status_code, message)
    response.headers.update(error.headers or {})
    return response


def _error(status: int, message: str | None = None) -> Callable[[Request, Exception], Awaitable[Response]]:
    """A handler answering with an error page: `message`, else the exception's own one line."""

    async def handle(request: Request, exc: Exception) -> Response:
        code = 503 if isinstance(exc, StoreBusyError) else status
        return error_page(request, code, message or str(exc))

    return handle


class Dashboard(Starlette):
    """Starlette with the security middleware outermost: its own error responses get the headers too."""

    def __init__(self, settings: UISettings, routes: list[BaseRoute]) -> None:
        super().__init__(
            routes=routes,
            exception_handlers={
                HTTPException: _http_error,
                UnknownExecution: _error(404),
                InputError: _error(400),
                StorageError: _error(500),
                Exception: _error(500, "internal error: the dashboard's terminal shows the details"),
            },
        )
        self.settings = settings
        self.state.settings = settings

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityMiddleware(super().build_middleware_stack(), self.settings)


async def favicon(request: Request) -> Response:
    """`/favicon.ico`, asked for where no page names an icon (a plain-text refusal): the pages' SVG."""
    return FileResponse(FAVICON, media_type="image/svg+xml")


def page_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for name in ROUTE_MODULES:
        routes += cast(list[BaseRoute], importlib.import_module(name).routes)
    return routes


def create_app(settings: UISettings) -> Starlette:
    static = Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static")
    icon = Route("/favicon.ico", favicon, methods=["GET"])
    return Dashboard(settings, [*page_routes(), icon, static])
