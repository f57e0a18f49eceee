"""The execution page shows the winning text, the best submission, right under its header: the
scripted execution's (three teams, up to four rounds) and, safely, one written by a hostile model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundKey, RoundRecord
from ui.conftest import Served
from ui.html_page import Element, parse

HOSTILE = (
    "# Plan <b>B</b>\n\n<script>window.__xss = 1</script>\n\n"
    "[details](javascript:window.__xss=1) and **bold**\n\n![pixel](https://tracker.example/p.png)"
)
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def _scripted(ws: Path) -> str:
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["execution_id"])


async def _hostile(db: Path) -> None:
    """A finished execution whose one scored round's submission carries markup and a script."""
    async with AggregationStore(db) as store:
        await store.create_execution("hostile-1", "go", {})
        await store.save_round(
            RoundRecord(
                execution_id="hostile-1",
                team_id="t1",
                team_name="Team <i>One</i>",
                round_number=1,
                submission_content=HOSTILE,
                evaluation_score=71.5,
                started_at=T0,
                ended_at=T0,
            )
        )
        await store.finish_execution("hostile-1", "completed", None)


async def _unscored(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.create_execution("fresh-1", "go", {})
        await store.mark_round_started(RoundKey("fresh-1", "t1", 1))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    ws = write_workspace(tmp_path_factory.mktemp("best") / "ws")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        execution_id = _scripted(ws)
    asyncio.run(_hostile(ws / "mixseek.db"))
    asyncio.run(_unscored(ws / "mixseek.db"))  # this process runs it: it reads as running
    return ws, execution_id


def best_section(served: Served, execution_id: str) -> tuple[Element, str]:
    with httpx.Client(base_url=served.url, timeout=60) as client:
        response = client.get(f"/executions/{execution_id}")
    assert response.status_code == 200
    return parse(response.text).by_id("best"), response.text


def test_the_page_shows_the_best_submissions_text(
    workspace: tuple[Path, str], serve: Callable[..., Served]
) -> None:
    ws, execution_id = workspace
    best, _ = best_section(serve(ws), execution_id)
    assert best.find("h2").text == "Best submission"
    assert best.by_id("best-meta").text == "Gamma, round 4: 99.0"
    link = best.by_id("best-meta").find("a").attrs["href"]
    assert link == f"/executions/{execution_id}/teams/gamma/rounds/4"
    assert best.by_id("best-submission").text.startswith("gamma answer v4")


def test_the_winning_text_is_sanitised_markdown(
    workspace: tuple[Path, str], serve: Callable[..., Served]
) -> None:
    ws, _ = workspace
    best, html = best_section(serve(ws), "hostile-1")
    body = best.by_id("best-submission")
    assert body.find("h1").text == "Plan <b>B</b>"  # Markdown rendered, the tag in it shown as text
    assert body.find("strong").text == "bold"
    assert body.find_all("script") == [] and body.find_all("img") == [] and body.find_all("b") == []
    assert "<script>window.__xss = 1</script>" in body.text
    assert all("javascript:" not in a.attrs.get("href", "") for a in body.find_all("a"))
    assert best.by_id("best-meta").text == "Team <i>One</i>, round 1: 71.5"
    assert "<script>window" not in html and "<i>One</i>" not in html


def test_before_any_scored_round_the_page_says_so(
    workspace: tuple[Path, str], serve: Callable[..., Served]
) -> None:
    ws, _ = workspace
    best, _ = best_section(serve(ws), "fresh-1")
    assert best.find("p", class_="muted").text == "No submission has been scored yet."
    assert best.find("div", id="best-body").attrs["sse-swap"] == "best"  # the live stream updates it
