"""The runs page over HTTP, against a real server and a real store: what each row says, filters and
sorting by bookmarkable query parameters, escaping, and the pages for an empty, damaged or busy store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient
from typer.testing import CliRunner

from e2e.scripted import write_workspace
from mixseek.cli.app import app
from mixseek.config.workspace import Workspace
from mixseek.ui.app import Dashboard
from mixseek.ui.reads import db_path, execution_view
from mixseek.ui.settings import UISettings

from .conftest import Served
from .runs_world import (
    HAIKU_PROMPT,
    LONG_PROMPT,
    XSS_PROMPT,
    RunsWorld,
    build_runs_world,
    listed_ids,
    table_rows,
)

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> RunsWorld:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        return build_runs_world(tmp_path_factory.mktemp("runs") / "ws")


@pytest.fixture
def served(world: RunsWorld, serve: Callable[..., Served]) -> Served:
    return serve(world.root)


def get(served: Served, path: str) -> httpx.Response:
    return httpx.get(served.url + path, timeout=60)


def test_every_execution_with_its_figures_newest_first(world: RunsWorld, served: Served) -> None:
    response = get(served, "/")
    assert response.status_code == 200
    rows = {str(row["id"]): row for row in table_rows(response.text)}
    assert list(rows) == world.newest_first
    first = rows[world.first]["cells"]
    assert {k: v for k, v in first.items() if k not in ("duration", "started")} == {  # type: ignore[union-attr]
        "execution": world.first,
        "status": "completed",
        "prompt": XSS_PROMPT,
        "teams": "3",
        "rounds": "4",
        "best score": "99.0",
        "best team": "Gamma",
        "tokens": "4,029",
        "cost": "–",
    }
    assert [rows[world.second]["cells"][k] for k in ("teams", "rounds", "best score", "best team")] == [  # type: ignore[index]
        "3",
        "1",
        "70.0",
        "Beta",
    ]
    halted = rows[world.interrupted]["cells"]
    assert {k: v for k, v in halted.items() if k != "started"} == {  # type: ignore[union-attr]
        "execution": world.interrupted,
        "status": "interrupted",
        "prompt": "Summarise the meeting notes",
        "teams": "1",
        "rounds": "1",
        "best score": "88.5",
        "best team": "DELTA",
        "tokens": "15",
        "cost": "$0.2500",
        "duration": "10 min 00 s",
    }
    failed = rows[world.failed]["cells"]
    assert [
        failed[k]
        for k in ("status", "teams", "rounds", "best score", "best team", "tokens", "cost", "duration")
    ] == [  # type: ignore[index]
        "failed",
        "0",
        "0",
        "–",
        "–",
        "120",
        "$1.5000",
        "2 h 00 min",
    ]
    for execution_id, row in rows.items():
        assert row["links"] == [f"/executions/{execution_id}"]


def test_a_long_prompt_is_cut_and_whole_in_the_tooltip(world: RunsWorld, served: Served) -> None:
    (row,) = [r for r in table_rows(get(served, "/").text) if r["id"] == world.failed]
    shown = str(row["cells"]["prompt"])  # type: ignore[index]
    assert len(shown) == 120 and shown.endswith("…")
    assert " ".join(LONG_PROMPT.split()).startswith(shown[:-1])
    assert row["titles"][2] == LONG_PROMPT  # type: ignore[index]


def test_model_text_is_escaped(world: RunsWorld, served: Served) -> None:
    html = get(served, "/").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; essay on &lt;img src=x onerror=alert(2)&gt; cats" in html
    assert "<script>alert(1)" not in html and "<img src=x" not in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?status=completed", ["second", "first"]),
        ("?status=failed", ["failed"]),
        ("?status=interrupted", ["interrupted"]),
        ("?status=running", []),
        ("?q=HAIKU", ["second"]),
        ("?q=%3Cscript%3E", ["first"]),  # the text as typed, not its escaped form
        ("?q=halted", ["interrupted"]),  # an id matches too
        ("?q=autumn&status=failed", []),
        ("?sort=started&order=asc", ["first", "second", "interrupted", "failed"]),
        ("?sort=score", ["first", "interrupted", "second", "failed"]),
        ("?sort=score&order=asc", ["second", "interrupted", "first", "failed"]),
        ("?sort=cost", ["failed", "interrupted", "second", "first"]),
        ("?sort=cost&order=asc", ["interrupted", "failed", "second", "first"]),
        ("?status=completed&sort=score&order=asc", ["second", "first"]),
    ],
)
def test_filter_and_sort_by_query(world: RunsWorld, served: Served, query: str, expected: list[str]) -> None:
    response = get(served, "/" + query)
    assert response.status_code == 200
    assert listed_ids(response.text) == [getattr(world, name) for name in expected]
    if not expected:
        assert "No execution matches (of 4)" in response.text


def test_sort_by_duration_follows_the_stored_durations(world: RunsWorld, served: Served) -> None:
    listed = CliRunner().invoke(app, ["runs", "list", "-w", str(world.root), "-f", "json"])
    durations = {e["execution_id"]: e["duration_seconds"] for e in json.loads(listed.stdout)}
    longest_first = sorted(durations, key=lambda i: durations[i], reverse=True)
    assert listed_ids(get(served, "/?sort=duration").text) == longest_first
    assert listed_ids(get(served, "/?sort=duration&order=asc").text) == longest_first[::-1]
    assert longest_first[:2] == [world.failed, world.interrupted]


def test_headings_link_to_the_other_order_keeping_the_filter(served: Served) -> None:
    html = get(served, "/?status=completed&q=a&sort=score").text
    assert (
        'href="/?status=completed&amp;q=a&amp;sort=score&amp;order=asc" class="sort sort-desc">Best score'
        in html
    )
    assert 'href="/?status=completed&amp;q=a&amp;sort=cost" class="sort">Cost' in html
    assert 'aria-sort="descending"' in html
    assert '<option value="completed" selected>completed (2)</option>' in html
    assert 'name="q" value="a"' in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "?status=done",
            "status: must be one of running, completed, partial_failure, failed, interrupted "
            "(got &#39;done&#39;)",
        ),
        ("?sort=name", "sort: must be one of started, score, cost, duration (got &#39;name&#39;)"),
        ("?order=up", "order: must be one of desc, asc (got &#39;up&#39;)"),
    ],
)
def test_a_bad_query_value_is_a_400_page_of_one_line(served: Served, query: str, message: str) -> None:
    response = get(served, "/" + query)
    assert response.status_code == 400
    assert f'<p class="error-message">{message}</p>' in response.text


def test_no_database_yet_is_an_empty_list(tmp_path: Path, serve: Callable[..., Served]) -> None:
    root = write_workspace(tmp_path / "ws")
    response = httpx.get(serve(root).url + "/", timeout=60)
    assert response.status_code == 200
    assert f"No executions yet in {root}." in response.text
    assert not (root / "mixseek.db").exists()  # reading never creates the store


def test_a_damaged_store_is_an_error_page_naming_the_file(
    tmp_path: Path, serve: Callable[..., Served]
) -> None:
    root = write_workspace(tmp_path / "ws")
    (root / "mixseek.db").write_bytes(b"this is not a DuckDB file at all" * 512)
    response = httpx.get(serve(root).url + "/", timeout=60)
    assert response.status_code == 500
    assert f'<p class="error-message">{root / "mixseek.db"}: ' in response.text
    assert "Traceback" not in response.text


def test_the_runs_page_reads_while_exec_writes_in_another_process(
    tmp_path: Path, serve: Callable[..., Served]
) -> None:
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"  # the exec holds its leaders of round 3 until this file exists
    served = serve(ws)
    proc = subprocess.Popen(
        [sys.executable, str(RUN_SCRIPTED), "exec", HAIKU_PROMPT, "-w", str(ws), "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "3"},
    )
    try:
        deadline = time.monotonic() + 120  # only a bound for a broken run
        while not gate.with_name("gate.waiting").exists():  # reading while rounds 1 and 2 are written
            assert proc.poll() is None and time.monotonic() < deadline, "the exec never reached round 3"
            assert get(served, "/").status_code == 200
            time.sleep(0.05)
        (row,) = table_rows(get(served, "/?status=running").text)
        assert row["cells"]["status"] == "running"  # type: ignore[index]
        # rounds scored: round 3 has started, but no submission of it was scored yet
        assert row["cells"]["rounds"] == "2" and row["cells"]["teams"] == "3"  # type: ignore[index]
        assert row["cells"]["best score"] == "75.0"  # type: ignore[index]
        gate.touch()
        out, err = proc.communicate(timeout=120)
    finally:
        gate.touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    (row,) = table_rows(get(served, "/").text)
    assert (row["id"], row["cells"]["status"]) == (json.loads(out)["execution_id"], "completed")  # type: ignore[index]


# -- error pages of the app (routes built here, through the dashboard's own handlers) ---------


def _dashboard(root: Path) -> TestClient:
    async def show(request: Request) -> Response:
        view = await execution_view(db_path(request), request.path_params["execution_id"])
        return PlainTextResponse(view.execution_id)

    settings = UISettings(workspace=Workspace(root))
    routes = [Route("/executions/{execution_id}", show)]
    return TestClient(Dashboard(settings, routes), base_url="http://127.0.0.1:8765")


def test_an_unknown_execution_is_a_404_page_of_one_escaped_line(world: RunsWorld) -> None:
    client = _dashboard(world.root)
    assert client.get(f"/executions/{world.second}").text == world.second
    response = client.get("/executions/<img src=x onerror=alert(1)>")
    assert response.status_code == 404
    db = world.root / "mixseek.db"
    assert (
        f'<p class="error-message">no execution &#39;&lt;img src=x onerror=alert(1)&gt;&#39; in {db}</p>'
        in response.text
    )
    assert "<img src=x" not in response.text


def test_an_unknown_page_is_a_404_page(world: RunsWorld) -> None:
    response = _dashboard(world.root).get("/no/such/page")
    assert response.status_code == 404
    assert '<p class="error-message">Not Found: GET /no/such/page</p>' in response.text
