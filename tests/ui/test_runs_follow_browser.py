"""The runs page follows a running execution to its end, without a reload: it said `running (1)`
for as long as it stayed open, rendered once while the execution ran."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
from playwright.sync_api import expect

from mixseek.storage.aggregation_store import AggregationStore
from ui.conftest import Served
from ui.html_page import parse

T = TypeVar("T")
UPDATE_MS = 60_000  # a bound for a broken page, never a pace the test relies on


def in_thread(work: Coroutine[Any, Any, T]) -> T:
    """`work` run in a thread of its own (Playwright's sync API keeps an event loop in this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


async def _two_executions(db: Path) -> None:
    """`done-1` completed; `run-1` running (this process owns it)."""
    async with AggregationStore(db) as store:
        await store.create_execution("done-1", "an earlier task", {})
        await store.finish_execution("done-1", "completed", None)
        await store.create_execution("run-1", "the task at hand", {})


async def _finish(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.finish_execution("run-1", "completed", None)


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    in_thread(_two_executions(ws / "mixseek.db"))
    return ws


def test_only_a_page_with_a_running_execution_asks_for_updates(
    tmp_path: Path, serve: Callable[..., Served]
) -> None:
    ws = _workspace(tmp_path)
    with httpx.Client(base_url=serve(ws).url, timeout=60) as client:
        running = parse(client.get("/?sort=score&q=task").text).by_id("runs-results")
        in_thread(_finish(ws / "mixseek.db"))
        ended = parse(client.get("/?sort=score&q=task").text).by_id("runs-results")
    assert running.attrs["hx-get"] == "/?q=task&sort=score"  # the same view: filter and order kept
    assert running.attrs["hx-trigger"] == "every 2s"
    assert (running.attrs["hx-select"], running.attrs["hx-select-oob"]) == ("#runs-results", "#status-filter")
    assert not any(name.startswith("hx-") for name in ended.attrs)


def test_the_runs_page_follows_a_running_execution_to_its_end(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    ws = _workspace(tmp_path)
    served = serve(ws)
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(served.url + "/")
    running = page.locator('select[name=status] option[value="running"]')
    completed = page.locator('select[name=status] option[value="completed"]')
    row_status = page.locator('tr[data-execution-id="run-1"] .status')
    expect(running).to_have_text("running (1)")
    expect(row_status).to_have_text("running")
    page.fill("input[name=q]", "half-typed")  # a filter being typed is left alone
    page.evaluate("window.mixseekTestMarker = 'same page'")  # gone if the page reloaded

    in_thread(_finish(ws / "mixseek.db"))
    expect(running).to_have_text("running (0)", timeout=UPDATE_MS)
    expect(completed).to_have_text("completed (2)")
    expect(row_status).to_have_text("completed")
    expect(page.locator("#runs-results")).not_to_have_attribute("hx-trigger", re.compile(".*"))
    assert page.evaluate("window.mixseekTestMarker") == "same page"
    assert page.input_value("input[name=q]") == "half-typed"
    assert console_errors == []
