"""An execution page following a running execution in a real Chromium: one stream for the whole
run and nothing in the browser's console; a stream that does fail says so in words.

The execution is written by this test through the store API (its process, this one, runs it);
the dashboard runs in a thread of this process, so the test counts the stream's polls of the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.sync_api import expect

from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundKey, RoundRecord
from mixseek.ui import live
from ui.conftest import Served

T = TypeVar("T")
EXECUTION = "live-1"
UPDATE_MS = 60_000  # a bound for a broken page, never a pace the test relies on
WATCHED_POLLS = 20
"""The stream's polls of the store the test watches the page for: at 0.5 s apart, longer than a
stream lasted before it lasted as long as its execution (5 s)."""


def in_thread(work: Coroutine[Any, Any, T]) -> T:
    """`work` run to its end in a thread of its own (Playwright's sync API keeps an event loop in
    this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


async def _running(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.create_execution(
            EXECUTION, "go", {"teams": {"t1": {"team_id": "t1", "team_name": "Team One"}}}
        )
        await store.mark_round_started(RoundKey(EXECUTION, "t1", 1))


async def _save_round(db: Path) -> None:
    record = RoundRecord(
        execution_id=EXECUTION,
        team_id="t1",
        team_name="Team One",
        round_number=1,
        submission_content="an answer",
        evaluation_score=64.0,
        started_at=datetime.now(UTC),
        ended_at=datetime.now(UTC),
    )
    async with AggregationStore(db) as store:
        await store.save_round(record)


async def _finish(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.finish_execution(EXECUTION, "completed", None)


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    in_thread(_running(ws / "mixseek.db"))
    return ws


def test_a_page_following_a_run_keeps_one_stream_and_logs_nothing(
    tmp_path: Path, serve: Callable[..., Served], page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)
    polls: list[str] = []
    read = live.current_rendering

    async def counted(*args: Any) -> Any:
        polls.append(args[1])
        return await read(*args)

    monkeypatch.setattr(live, "current_rendering", counted)
    served = serve(ws)
    streams: list[str] = []
    page.on("request", lambda r: streams.append(r.url) if r.resource_type == "eventsource" else None)
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))

    page.goto(f"{served.url}/executions/{EXECUTION}")
    expect(page.locator("#execution-status")).to_have_text("running")
    deadline = time.monotonic() + UPDATE_MS / 1000
    while len(polls) < WATCHED_POLLS:
        assert time.monotonic() < deadline, f"the stream polled the store {len(polls)} times"
        page.wait_for_timeout(100)
    in_thread(_save_round(ws / "mixseek.db"))
    score = page.locator('#execution-grid tr[data-team="t1"] td[data-round="1"] .cell-score')
    expect(score).to_have_text("64.0", timeout=UPDATE_MS)
    in_thread(_finish(ws / "mixseek.db"))
    expect(page.locator("#execution-status")).to_have_text("completed", timeout=UPDATE_MS)
    expect(page.locator(".live-badge")).to_have_count(0)

    assert streams == [f"{served.url}/executions/{EXECUTION}/stream"]  # never reconnected
    assert console == []


def test_a_teams_heading_names_it_from_the_start(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    ws = _workspace(tmp_path)
    served = serve(ws)
    page.goto(f"{served.url}/executions/{EXECUTION}")
    heading = page.locator('#execution-grid tr[data-team="t1"] th')
    expect(heading.locator(".team-name")).to_have_text("Team One")  # round 1 runs, none is saved
    in_thread(_save_round(ws / "mixseek.db"))
    score = page.locator('#execution-grid tr[data-team="t1"] td[data-round="1"] .cell-score')
    expect(score).to_have_text("64.0", timeout=UPDATE_MS)  # swapped in by the stream
    expect(heading.locator(".team-name")).to_have_text("Team One")


def test_the_winning_text_shows_as_soon_as_a_round_is_scored(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    ws = _workspace(tmp_path)
    served = serve(ws)
    page.goto(f"{served.url}/executions/{EXECUTION}")
    best = page.locator("#best")
    expect(best).to_contain_text("No submission has been scored yet.")
    in_thread(_save_round(ws / "mixseek.db"))
    expect(best.locator("#best-submission")).to_have_text("an answer", timeout=UPDATE_MS)
    expect(best.locator("#best-meta")).to_have_text("Team One, round 1: 64.0 (best so far)")
    in_thread(_finish(ws / "mixseek.db"))
    expect(best.locator("#best-meta")).to_have_text("Team One, round 1: 64.0", timeout=UPDATE_MS)
    expect(best.locator("#best-submission")).to_be_visible()


OPENED = "window.mixseekStreamsOpened = 0;" + (
    "document.addEventListener('htmx:sseOpen', () => { window.mixseekStreamsOpened += 1; });"
)


def test_a_stream_that_fails_says_so_in_the_console(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(_workspace(tmp_path))
    page.add_init_script(OPENED)
    page.goto(f"{served.url}/executions/{EXECUTION}")
    expect(page.locator("#execution-status")).to_have_text("running")
    page.wait_for_function("window.mixseekStreamsOpened > 0", timeout=UPDATE_MS)

    def stopped(message: Any) -> bool:
        return str(message.text).startswith("mixseek: live updates of this page stopped")

    with page.expect_console_message(stopped, timeout=UPDATE_MS) as said:
        served.stop()  # as a Ctrl-C in the dashboard's terminal: its streams end
    assert said.value.type == "error"
    assert said.value.text == (
        "mixseek: live updates of this page stopped (the connection to the dashboard was lost: "
        f"{served.url}/executions/{EXECUTION}/stream); retrying in a few seconds; reload the page "
        "if they do not come back"
    )
