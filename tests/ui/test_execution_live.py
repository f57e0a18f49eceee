"""An execution page open in a real Chromium while `mixseek exec` runs in another process.

The exec's leaders wait for a per-round "go" file (tests/ui/run_gated.py), so the test decides
when each round may finish: the page is seen mid-round, then updates without a reload as rounds
are saved, and the exec, never locked out by the dashboard, ends with exit code 0.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from e2e.scripted import write_workspace
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.ui import live
from ui.conftest import Served
from ui.run_gated import go_file, waiting_file

RUN_GATED = Path(__file__).parent / "run_gated.py"
BOUND = 120.0  # seconds: only a bound for a broken run, never a pace the test relies on
UPDATE_MS = 60_000
SCREENSHOTS = Path(__file__).parents[2] / "docs" / "screenshots"


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + BOUND
    while not path.exists():
        assert proc.poll() is None, f"the exec ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def _execution_id(db: Path) -> str:
    """The one execution's id, read as the dashboard reads (in a thread of its own: Playwright's
    sync API keeps an event loop in this one)."""

    async def read() -> str:
        async with AggregationStore(db, read_only=True) as store:
            (overview,) = await store.list_execution_overviews()
            return overview.execution_id

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


def _cell(page: Any, team: str, round_number: int, part: str) -> Any:
    return page.locator(
        f'#execution-grid tr[data-team="{team}"] td[data-round="{round_number}"] .cell-{part}'
    )


def test_page_follows_a_running_exec_without_reload(
    tmp_path: Path, serve: Callable[..., Served], page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # short streams: the page reconnects many times meanwhile, and must miss no update
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.3)
    ws = write_workspace(tmp_path / "ws")
    go_dir = tmp_path / "go"
    go_dir.mkdir()
    served = serve(ws)
    proc = subprocess.Popen(
        [sys.executable, str(RUN_GATED), "exec", "最良の回答を", "-w", str(ws), "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SCRIPTED_GO_DIR": str(go_dir)},
    )
    try:
        _wait_for(waiting_file(go_dir, 1), proc)
        execution_id = _execution_id(ws / "mixseek.db")

        page.goto(f"{served.url}/executions/{execution_id}")
        expect(page.locator("#execution-status")).to_have_text("running")
        expect(page.locator(".live-badge")).to_have_text("live")
        expect(_cell(page, "alpha", 1, "status")).to_have_text("running")
        expect(_cell(page, "alpha", 1, "score")).to_have_text("–")
        page.evaluate("window.mixseekTestMarker = 'same page'")  # gone if the page reloaded

        go_file(go_dir, 1).touch()
        expect(_cell(page, "alpha", 1, "score")).to_have_text("60.0", timeout=UPDATE_MS)
        expect(_cell(page, "beta", 1, "score")).to_have_text("70.0", timeout=UPDATE_MS)
        expect(page.locator("#execution-leaderboard tbody tr").first).to_contain_text(
            "Beta", timeout=UPDATE_MS
        )
        expect(page.locator("#execution-judgments")).to_contain_text("alpha after 1", timeout=UPDATE_MS)
        _wait_for(waiting_file(go_dir, 2), proc)  # round 2 is held: the execution still runs
        expect(_cell(page, "alpha", 2, "status")).to_have_text("running", timeout=UPDATE_MS)
        expect(page.locator("#execution-status")).to_have_text("running")
        expect(page.locator("#chart-body svg polyline")).to_have_count(3)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1400, "height": 900})
        page.screenshot(path=str(SCREENSHOTS / "execution.png"), full_page=True)  # live, mid-round

        for round_number in (2, 3, 4):
            go_file(go_dir, round_number).touch()
        _, err = proc.communicate(timeout=BOUND)
        assert proc.returncode == 0, err

        expect(page.locator("#execution-status")).to_have_text("completed", timeout=UPDATE_MS)
        expect(_cell(page, "gamma", 4, "score")).to_have_text("99.0", timeout=UPDATE_MS)
        expect(page.locator("#execution-leaderboard tbody tr").first).to_contain_text("Gamma")
        expect(page.locator(".live-badge")).to_have_count(0)
        assert page.evaluate("window.mixseekTestMarker") == "same page"
    finally:
        for round_number in (1, 2, 3, 4):
            go_file(go_dir, round_number).touch()
        if proc.poll() is None:
            try:
                proc.communicate(timeout=BOUND)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()


def _start_ui(root: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mixseek.cli", "ui", "-w", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once the socket listens
    match = re.search(r" on (http://\S+) ", line)
    assert match, (line, proc.communicate() if proc.poll() is not None else "")
    return proc, match[1].rstrip("/")


def test_ctrl_c_stops_the_dashboard_while_a_page_follows_a_running_execution(tmp_path: Path) -> None:
    """An open live stream does not keep `mixseek ui` from stopping (uvicorn waits for open
    responses, and a stream lasts as long as its execution runs: the server tells the streams to
    end first, `ui.server.DashboardServer`)."""
    root = tmp_path / "ws"
    root.mkdir()

    async def running_execution() -> None:  # owned by this process, which lives on: it runs
        async with AggregationStore(root / "mixseek.db") as store:
            await store.create_execution("live-1", "go", {})

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, running_execution()).result()
    proc, url = _start_ui(root)
    try:
        with (
            httpx.Client(timeout=BOUND) as client,
            client.stream("GET", f"{url}/executions/live-1/stream") as s,
        ):
            lines = s.iter_lines()
            assert s.status_code == 200, s.read()
            assert "event: header" in lines  # the first update came: the stream is open
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=BOUND)
        assert (proc.returncode, err) == (130, "interrupted\n")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
