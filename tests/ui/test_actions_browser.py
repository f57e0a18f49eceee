"""Start, stop and resume an execution in a real Chromium: the form, the execution page's buttons,
and the statuses the page shows. The execution is a real `mixseek exec` process with scripted
models; a gate holds its leaders in round 2 until the test opens it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from ui.actions_support import TWO_ROUNDS, Gate, actions_workspace, gated, record, scripted_argv
from ui.conftest import Served

DEADLINE_MS = 300_000  # generous: the page shows each status as soon as the store has it
PROMPT = "Compare <three> options\nand pick one"


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from gated(tmp_path, monkeypatch)


def test_start_stop_and_resume_from_the_browser(
    tmp_path: Path, serve: Callable[..., Served], page: Any, gate: Gate
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    served = serve(ws, exec_argv=scripted_argv())

    page.goto(f"{served.url}/new")
    expect(page.locator("#config option")).to_have_count(2)
    page.fill("#prompt", PROMPT)
    page.select_option("#config", TWO_ROUNDS)
    page.click("#start")

    expect(page).to_have_url(re.compile(rf"^{re.escape(served.url)}/executions/[0-9a-z-]+$"))
    execution_id = page.url.rsplit("/", 1)[1]
    # the page says "starting" and reloads itself until the process has written the execution
    expect(page.locator("#execution-status")).to_have_text("running", timeout=DEADLINE_MS)
    expect(page.locator("#execution-prompt")).to_have_text(PROMPT)

    page.click("#stop")
    expect(page.locator("#execution-status")).to_have_text("interrupted", timeout=DEADLINE_MS)
    expect(page.locator("#stop")).to_have_count(0)
    stored = record(ws, execution_id)
    assert stored is not None and stored.status == "interrupted"

    gate.open()
    page.click("#resume")
    expect(page.locator("#execution-status")).to_have_text("completed", timeout=DEADLINE_MS)
    expect(page.locator("#resume")).to_have_count(0)
    stored = record(ws, execution_id)
    assert stored is not None and stored.status == "completed"
