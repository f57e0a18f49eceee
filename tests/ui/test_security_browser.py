"""CSRF in a real Chromium: a form of the dashboard posts (its page has `Referrer-Policy:
no-referrer`, so the browser sends `Origin: null` and `Sec-Fetch-Site: same-origin`), and a form
of another site posting to the dashboard is refused even when it carries the right token."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

import mixseek.ui.app as ui_app
from e2e.scripted import write_workspace

from .conftest import Served


async def _form(request: Request) -> Response:
    token = request.scope["mixseek.csrf_token"]
    return HTMLResponse(
        '<!doctype html><title>form</title><form method="post" action="/echo">'
        f'<input type="hidden" name="csrf_token" value="{token}">'
        '<input name="note" value="from the dashboard"><button type="submit">Send</button></form>'
    )


async def _echo(request: Request) -> Response:
    form = await request.form()
    return PlainTextResponse(f"ok note={form['note']}")


@pytest.fixture
def dashboard(tmp_path: Path, serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch) -> Served:
    real = ui_app.page_routes
    extra: list[BaseRoute] = [Route("/form", _form), Route("/echo", _echo, methods=["POST"])]
    monkeypatch.setattr(ui_app, "page_routes", lambda: [*real(), *extra])
    return serve(write_workspace(tmp_path / "ws"))


@pytest.fixture
def other_site(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """`publish(html)`: the URL of a page with that HTML on another origin (another port)."""
    directory = tmp_path / "other-site"
    directory.mkdir()
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def publish(html: str) -> str:
        (directory / "attack.html").write_text(html, encoding="utf-8")
        return f"http://127.0.0.1:{server.server_address[1]}/attack.html"

    yield publish
    server.shutdown()
    thread.join(timeout=30)
    server.server_close()


def test_a_form_of_the_dashboard_posts(dashboard: Served, page: Any) -> None:
    page.goto(dashboard.url + "/form")
    with page.expect_navigation():
        page.click("button")
    assert page.locator("body").inner_text().strip() == "ok note=from the dashboard"


def test_a_form_of_another_site_is_refused(
    dashboard: Served, other_site: Callable[[str], str], page: Any
) -> None:
    page.goto(dashboard.url + "/form")  # the browser holds the dashboard's CSRF cookie
    token = page.locator("input[name=csrf_token]").get_attribute("value")
    attack = other_site(
        f'<!doctype html><form method="post" action="{dashboard.url}/echo">'
        f'<input type="hidden" name="csrf_token" value="{token}">'
        '<input name="note" value="forged"><button type="submit">Win a prize</button></form>'
    )
    page.goto(attack)
    with page.expect_navigation():
        page.click("button")
    assert (
        page.locator("body").inner_text().strip()
        == "403: cross-origin request refused (Sec-Fetch-Site: same-site)"
    )
