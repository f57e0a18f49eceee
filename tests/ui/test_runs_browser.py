"""The runs page in a real Chromium: the table, sorting by a heading, filtering with the form, a
row's link, a prompt holding markup shown as text, and no Content-Security-Policy violation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Served
from .runs_world import XSS_PROMPT, RunsWorld, build_runs_world

SCREENSHOTS = Path(__file__).parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> RunsWorld:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        return build_runs_world(tmp_path_factory.mktemp("runs-browser") / "ws")


def shown_ids(page: Any) -> list[str]:
    return list(
        page.locator("table.runs tbody tr").evaluate_all("rows => rows.map(r => r.dataset.executionId)")
    )


def test_the_runs_page_in_chromium(world: RunsWorld, serve: Callable[..., Served], page: Any) -> None:
    served = serve(world.root)
    console_errors: list[str] = []
    page.on(
        "console", lambda message: console_errors.append(message.text) if message.type == "error" else None
    )
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    page.goto(served.url + "/")
    page.wait_for_load_state("load")
    assert page.title() == "Runs · mixseek"
    assert shown_ids(page) == world.newest_first
    row = page.locator(f'tr[data-execution-id="{world.first}"]')
    assert row.locator("td.prompt").inner_text() == XSS_PROMPT
    assert page.locator("main script, main img").count() == 0
    assert page.evaluate("typeof htmx") == "object"  # the vendored script ran under the CSP
    # the stylesheet applied: a status badge has its colours
    assert row.locator(".status").evaluate("e => getComputedStyle(e).borderRadius") == "999px"

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1400, "height": 520})
    page.screenshot(path=str(SCREENSHOTS / "runs.png"), full_page=True)

    page.click("th >> text=Best score")
    page.wait_for_url("**/?sort=score")
    assert shown_ids(page) == [world.first, world.interrupted, world.second, world.failed]
    page.click("th >> text=Best score")
    page.wait_for_url("**/?sort=score&order=asc")
    assert shown_ids(page) == [world.second, world.interrupted, world.first, world.failed]

    page.select_option("select[name=status]", "completed")
    page.fill("input[name=q]", "haiku")
    page.click("form.filters button")
    page.wait_for_url("**/?status=completed&q=haiku&sort=score&order=asc")
    assert shown_ids(page) == [world.second]

    page.click("a.clear")
    page.wait_for_url("**/?sort=score&order=asc")
    assert len(shown_ids(page)) == 4

    with page.expect_navigation():
        page.click(f'tr[data-execution-id="{world.second}"] td:first-child a')
    assert page.url == f"{served.url}/executions/{world.second}"

    assert dialogs == []
    assert [m for m in console_errors if "Content Security Policy" in m or "Refused" in m] == []
