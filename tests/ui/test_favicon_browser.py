"""The dashboard's icon: every page names it, and `/favicon.ico` (which a browser asks for where no
page names one) serves it, so no page leaves a 404 in the browser's console."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ui.conftest import Served


def test_favicon_ico_is_the_dashboards_svg_icon(tmp_path: Path, serve: Callable[..., Served]) -> None:
    served = serve(tmp_path)
    with httpx.Client(base_url=served.url, timeout=60) as client:
        icon = client.get("/favicon.ico")
        linked = client.get("/static/favicon.svg")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/svg+xml"
    assert icon.headers["x-content-type-options"] == "nosniff"
    assert icon.content == linked.content
    assert icon.text.startswith("<svg ") and "<script" not in icon.text


def test_a_page_shows_its_icon_and_logs_no_error(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(tmp_path)
    console_errors: list[str] = []
    page.on(
        "console", lambda message: console_errors.append(message.text) if message.type == "error" else None
    )
    page.goto(served.url + "/")
    page.wait_for_load_state("load")
    # the icon the page names loads as an image under the page's Content-Security-Policy
    width = page.evaluate(
        """async () => {
            const image = new Image();
            image.src = document.querySelector('link[rel="icon"]').href;
            await image.decode();
            return image.naturalWidth;
        }"""
    )
    assert width > 0
    response = page.goto(served.url + "/favicon.ico")
    assert response is not None and response.status == 200
    assert console_errors == []
