"""A real dashboard server on 127.0.0.1 and a real Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from mixseek.config.workspace import Workspace

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    """A running dashboard: its address and settings, and how to stop it (as a Ctrl-C would)."""

    url: str
    settings: Any
    stop: Callable[[], None]


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """`serve(workspace_dir, **settings)`: the dashboard of that workspace, served as `mixseek ui`
    serves it (uvicorn, `DashboardServer`) in a thread on a free port of 127.0.0.1 until the test
    ends or stops it."""
    from mixseek.ui.app import create_app
    from mixseek.ui.server import DashboardServer
    from mixseek.ui.settings import UISettings

    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(root: Path, **options: Any) -> Served:
        port = free_port()
        settings = UISettings(workspace=Workspace(root), port=port, **options)
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
        server = DashboardServer(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the dashboard did not start")
            time.sleep(0.02)
        servers.append((server, thread))

        def stop() -> None:
            server.should_exit = True
            thread.join(timeout=30)
            assert not thread.is_alive(), "the dashboard did not stop"

        return Served(f"http://127.0.0.1:{port}", settings, stop)

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per test module (modules of browser tests hold only sync tests: Playwright's
    sync API runs an event loop of its own)."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)"
        if os.environ.get("MIXSEEK_TEST_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page; script errors on the page fail the test."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"
