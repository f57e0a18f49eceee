"""The exported HTML report in a real Chromium: it reads with JavaScript disabled, loads nothing
but itself, and its own Content-Security-Policy stops a script someone adds to the saved file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from e2e.html_report import Exported, export_scripted

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """Made before the browser starts (tests name it first): `mixseek exec` runs its own event
    loop, which cannot start while Playwright's sync API holds one in this thread."""
    return export_scripted(tmp_path_factory.mktemp("report"), "Write a haiku about the sea")


def test_report_shows_leaderboard_and_chart_with_scripts_disabled(exported: Exported, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    try:
        page = context.new_page()
        page.goto(exported.report.as_uri())
        expect(page).to_have_title("mixseek run: Write a haiku about the sea")

        leaderboard = page.locator("table.leaderboard")
        expect(leaderboard).to_be_visible()
        expect(leaderboard.locator("tbody tr")).to_have_count(3)
        expect(leaderboard.locator("tbody tr").first).to_contain_text("Gamma")
        expect(leaderboard.locator("tbody tr").first).to_contain_text("99.0")

        chart = page.locator("#chart svg")
        expect(chart).to_be_visible()
        polylines = page.locator("#chart svg polyline")
        expect(polylines).to_have_count(3)
        for i in range(3):
            expect(polylines.nth(i)).to_be_visible()
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150

        expect(page.locator("table.grid tbody tr")).to_have_count(3)
        expect(page.locator("table.judgments")).to_contain_text("gamma after 3")
        expect(page.locator("#usage-by-model")).to_contain_text("script:metric")
        # the inline stylesheet applied (the CSP lets it through): the facts are laid out as a grid
        assert page.locator("dl.facts").evaluate("e => getComputedStyle(e).display") == "grid"

        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=True)
    finally:
        context.close()
    assert requested == [exported.report.as_uri()]


def test_a_script_added_to_the_saved_file_does_not_run(
    exported: Exported, browser: Any, tmp_path: Path
) -> None:
    html = exported.report.read_text(encoding="utf-8")
    tampered = tmp_path / "tampered.html"
    tampered.write_text(
        html.replace(
            "</body>",
            "<script>document.title = 'ran'</script>"
            "<img id=probe src=x onerror=\"document.title = 'ran'\">"
            "<img src=http://127.0.0.1:9/pixel.png></body>",
        ),
        encoding="utf-8",
    )
    context = browser.new_context()  # JavaScript on: only the page's own policy stands in the way
    loaded: list[str] = []
    blocked: dict[str, str] = {}
    context.on("requestfinished", lambda request: loaded.append(request.url))
    context.on("requestfailed", lambda request: blocked.update({request.url: request.failure}))
    try:
        page = context.new_page()
        refused: list[str] = []
        page.on("console", lambda message: refused.append(message.text))
        page.goto(tampered.as_uri())
        page.wait_for_load_state("load")
        expect(page.locator("table.leaderboard")).to_be_visible()
        assert page.title() == "mixseek run: Write a haiku about the sea"
        assert any("Content Security Policy" in text for text in refused), refused
    finally:
        context.close()
    assert loaded == [tampered.as_uri()]
    assert blocked == {
        tampered.with_name("x").as_uri(): "csp",
        "http://127.0.0.1:9/pixel.png": "csp",
    }
