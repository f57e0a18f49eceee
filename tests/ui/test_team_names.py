"""A team is shown by its name from the start of an execution: the config snapshot the execution
stored names every team, so the grid does not show the bare team id until a round is saved."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx

from mixseek.storage.aggregation_store import AggregationStore
from ui.conftest import Served
from ui.html_page import parse

SNAPSHOT = {
    "teams": {
        "t1": {"team_id": "t1", "team_name": "Team <One>"},
        "t2": {"team_id": "t2", "team_name": "Second team"},
    }
}


async def _running(db: Path) -> None:
    """Round 1 of both teams started, none saved; the execution is this process's (running)."""
    async with AggregationStore(db) as store:
        await store.create_execution("named-1", "go", SNAPSHOT)
        await store.mark_rounds_started("named-1", 1, ["t1", "t2"])


def test_the_grid_names_each_team_before_a_round_of_it_is_saved(
    tmp_path: Path, serve: Callable[..., Served]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    asyncio.run(_running(ws / "mixseek.db"))
    with httpx.Client(base_url=serve(ws).url, timeout=60) as client:
        page = client.get("/executions/named-1")
        with client.stream("GET", "/executions/named-1/stream") as stream:
            lines = []
            for line in stream.iter_lines():  # the first update, up to its grid section's end
                if line == "event: leaderboard":
                    break
                lines.append(line)
    assert page.status_code == 200
    assert "Team &lt;One&gt;" in page.text  # escaped, as every name
    expected = {"t1": "Team <One> t1 running", "t2": "Second team t2 running"}
    assert headings(page.text) == expected
    grid = lines[lines.index("event: grid") + 1 :]
    assert headings("\n".join(line.removeprefix("data: ") for line in grid)) == expected


def headings(html: str) -> dict[str, str]:
    """The grid's row headings by team id."""
    rows = parse(html).by_id("execution-grid").find("tbody").find_all("tr")
    return {tr.attrs["data-team"]: tr.find("th").text for tr in rows}
