"""The execution page and its live stream over HTTP, on a real dashboard server.

One execution is made through the CLI with scripted models (three teams, up to four rounds; see
tests/e2e/scripted.py for its scores and judgments), one by hand through the store API (a failed
round, a failed member, a degraded end, HTML in team names and model text).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from markupsafe import Markup
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.report import content
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundKey, RoundRecord
from mixseek.ui import live
from ui.conftest import Served
from ui.html_page import Element, parse

HAND_ID = "hand-1"
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
EVIL = "<b>x</b>"


@dataclass(frozen=True)
class Stored:
    ws: Path
    scripted_id: str


def _round(
    execution_id: str, team_id: str, team_name: str, number: int, score: float, **extra: Any
) -> RoundRecord:
    return RoundRecord(
        execution_id=execution_id,
        team_id=team_id,
        team_name=team_name,
        round_number=number,
        submission_content=f"{team_id} round {number}",
        evaluation_score=score,
        usage_info={"team": {"input_tokens": 100, "output_tokens": 20}, "evaluation": {"input_tokens": 7}},
        started_at=T0,
        ended_at=T0.replace(second=3),
        **extra,
    )


async def _hand_made(db: Path) -> None:
    """A degraded execution: team t1 scored round 1 (a member failed) and timed out in round 2."""
    store = AggregationStore(db)
    await store.create_execution(HAND_ID, f"Compare {EVIL}\nsecond line", {})
    members = {
        "submissions": [
            {"agent_name": "ok", "agent_type": "plain", "content": "fine", "status": "SUCCESS"},
            {
                "agent_name": "bad",
                "agent_type": "plain",
                "content": "",
                "status": "ERROR",
                "error_message": "boom <i>",
            },
        ]
    }
    await store.save_round(
        _round(
            HAND_ID,
            "t1",
            EVIL,
            1,
            42.5,
            member_submissions_record=members,
            should_continue=True,
            judgment_reasoning="needs <em>more</em>\nwork",
            judgment_confidence=0.25,
        ),
        model_calls=[
            {
                "site": "leader of team 't1'",
                "model": "m1",
                "input_tokens": 100,
                "output_tokens": 20,
                "cost": 0.5,
            }
        ],
    )
    await store.mark_round_started(RoundKey(HAND_ID, "t1", 2), started_at=T0)
    await store.mark_round_failed(RoundKey(HAND_ID, "t1", 2), "timeout", "timed out after 5 s", ended_at=T0)
    summary = {
        "stop_reason": "budget",
        "stop_detail": "token budget of 1000 reached",
        "degraded_reasons": ["judgment of <t1> failed"],
        "teams": [
            {
                "team_id": "t1",
                "team_name": EVIL,
                "status": "failed",
                "rounds_completed": 1,
                "best_round": 1,
                "best_score": 42.5,
                "error": "timed out after 5 s",
            },
        ],
        "rounds_run": 2,
        "duration_seconds": 75.0,
    }
    await store.finish_execution(HAND_ID, "partial_failure", summary, ended_at=T0.replace(minute=1))
    await store.aclose()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    ws = write_workspace(tmp_path_factory.mktemp("exec-page") / "ws")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        with override_models(World().models()):
            result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    asyncio.run(_hand_made(ws / "mixseek.db"))
    return Stored(ws, json.loads(result.stdout)["execution_id"])


@pytest.fixture
def dashboard(stored: Stored, serve: Callable[..., Served]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=serve(stored.ws).url, timeout=60) as client:
        yield client


def page(client: httpx.Client, path: str) -> Element:
    response = client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    return parse(response.text)


def cell(doc: Element, team: str, round_number: int) -> Element:
    """The grid's cell of one team's round."""
    grid = doc.by_id("execution-grid")
    return grid.find("tr", data_team=team).find("td", data_round=str(round_number))


def cell_texts(td: Element) -> tuple[str, str, str, str]:
    return (
        td.find("span", class_="cell-score").text,
        td.find("span", class_="cell-status").text,
        td.find("span", class_="cell-tokens").text,
        td.find("span", class_="cell-time").text,
    )


# -- a finished execution ------------------------------------------------------------------


def test_grid_has_a_cell_per_team_round_linking_to_its_submission(
    dashboard: httpx.Client, stored: Stored
) -> None:
    eid = stored.scripted_id
    doc = page(dashboard, f"/executions/{eid}")
    grid = doc.by_id("execution-grid")
    assert grid.rows()[0] == ["Team", "Round 1", "Round 2", "Round 3", "Round 4"]
    assert [tr.attrs["data-team"] for tr in grid.find("tbody").find_all("tr")] == ["gamma", "alpha", "beta"]

    scores = {
        team: [cell(grid, team, n).find_all("span", class_="cell-score") for n in range(1, 5)]
        for team in ("gamma", "alpha", "beta")
    }
    shown = {team: [s[0].text if s else None for s in spans] for team, spans in scores.items()}
    assert shown == {
        "gamma": ["50.0", "75.0", "78.0", "99.0"],
        "alpha": ["60.0", "75.0", "80.0", None],
        "beta": ["70.0", "72.0", None, None],
    }
    # tokens: the team's run and its evaluation (a leader team pays no member call)
    score, status, tokens, elapsed = cell_texts(cell(grid, "alpha", 2))
    assert (score, status, tokens) == ("75.0", "completed", "439 tokens")
    assert re.fullmatch(r"\d+\.\d s", elapsed)
    assert cell_texts(cell(grid, "beta", 1))[2] == "294 tokens"
    assert cell(grid, "beta", 3).text == "–" and "cell-none" in cell(grid, "beta", 3).attrs["class"]
    assert cell(grid, "gamma", 4).find("a").attrs["href"] == f"/executions/{eid}/teams/gamma/rounds/4"
    assert "best" in cell(grid, "gamma", 4).attrs["class"].split()
    assert grid.find("tr", data_team="beta").find("th").text == "Beta beta completed stopped: judgment"


def test_leaderboard_best_first_with_best_rounds(dashboard: httpx.Client, stored: Stored) -> None:
    board = page(dashboard, f"/executions/{stored.scripted_id}").by_id("execution-leaderboard")
    assert board.rows() == [
        ["#", "Team", "Best score", "Best round", "Rounds", "Status"],
        ["1", "Gamma", "99.0", "4", "4", "completed"],
        ["2", "Alpha", "80.0", "3", "3", "completed"],
        ["3", "Beta", "72.0", "2", "2", "completed"],
    ]


def test_judgments_show_each_decision_and_its_reasoning(dashboard: httpx.Client, stored: Stored) -> None:
    judgments = page(dashboard, f"/executions/{stored.scripted_id}").by_id("execution-judgments")
    assert judgments.rows() == [
        ["Team", "Round", "Decision", "By", "Confidence", "Reasoning"],
        ["Gamma", "1", "continue", "judgment", "0.80", "gamma after 1"],
        ["Gamma", "2", "continue", "judgment", "0.80", "gamma after 2"],
        ["Gamma", "3", "continue", "judgment", "0.80", "gamma after 3"],
        ["Gamma", "4", "stop", "max_rounds", "–", ""],
        ["Alpha", "1", "continue", "judgment", "0.80", "alpha after 1"],
        ["Alpha", "2", "continue", "judgment", "0.80", "alpha after 2"],
        ["Alpha", "3", "stop", "judgment", "0.80", "alpha after 3"],
        ["Beta", "1", "continue", "judgment", "0.80", "beta after 1"],
        ["Beta", "2", "stop", "judgment", "0.80", "beta after 2"],
    ]


def test_usage_by_role_and_by_model(dashboard: httpx.Client, stored: Stored) -> None:
    doc = page(dashboard, f"/executions/{stored.scripted_id}")
    header = ["Call site", "Requests", "Input tokens", "Output tokens", "Total tokens", "Cost"]
    total = ["Total", "58", "3,480", "549", "4,029", "–"]
    assert doc.by_id("usage-by-role").rows() == [
        header,
        ["evaluator metric 'clarity_coherence'", "9", "450", "72", "522", "–"],
        ["evaluator metric 'coverage'", "9", "450", "72", "522", "–"],
        ["evaluator metric 'relevance'", "9", "450", "72", "522", "–"],
        ["judgment", "8", "320", "48", "368", "–"],
        ["leader of team 'alpha'", "6", "600", "90", "690", "–"],
        ["leader of team 'beta'", "2", "200", "40", "240", "–"],
        ["leader of team 'gamma'", "8", "800", "120", "920", "–"],
        ["member 'helper' of team 'alpha'", "3", "90", "15", "105", "–"],
        ["member 'helper' of team 'gamma'", "4", "120", "20", "140", "–"],
        total,
    ]
    assert doc.by_id("usage-by-model").rows() == [
        ["Model", *header[1:]],
        ["script:judgment", "8", "320", "48", "368", "–"],
        ["script:leader-alpha", "6", "600", "90", "690", "–"],
        ["script:leader-beta", "2", "200", "40", "240", "–"],
        ["script:leader-gamma", "8", "800", "120", "920", "–"],
        ["script:member", "7", "210", "35", "245", "–"],
        ["script:metric", "27", "1,350", "216", "1,566", "–"],
        total,
    ]


def test_header_and_a_finished_page_does_not_listen(dashboard: httpx.Client, stored: Stored) -> None:
    eid = stored.scripted_id
    response = dashboard.get(f"/executions/{eid}")
    doc = parse(response.text)
    assert doc.by_id("execution-status").text == "completed"
    assert doc.by_id("execution-prompt").text == "最良の回答を"
    assert doc.by_id("execution-rounds").text == "4"
    assert doc.by_id("execution-tokens").text == "4,029"
    assert doc.by_id("execution-stop").text == "finished"
    assert doc.by_id("execution-best").text == "Gamma, round 4: 99.0"
    assert doc.find_all("div", id="execution-degraded") == []
    assert "No team, round or member failed." in doc.by_id("failures").text
    assert "sse-connect" not in response.text and doc.find_all("form") == []
    assert len(doc.by_id("chart-body").find_all("polyline")) == 3


def test_failures_degraded_end_and_escaped_model_text(dashboard: httpx.Client) -> None:
    response = dashboard.get(f"/executions/{HAND_ID}")
    assert response.status_code == 200
    doc = parse(response.text)
    assert "<b>x</b>" not in response.text and "<em>" not in response.text and "<i>" not in response.text
    assert doc.by_id("execution-status").text == "partial_failure"
    assert doc.by_id("execution-prompt").raw_text == "Compare <b>x</b>\nsecond line"
    assert doc.by_id("execution-stop").text == "budget: token budget of 1000 reached"
    assert doc.by_id("execution-duration").text == "1 min 15 s"
    assert doc.by_id("execution-cost").text == "$0.5000"
    assert doc.by_id("execution-degraded").find("li").text == "judgment of <t1> failed"
    assert doc.by_id("execution-failures").rows() == [
        ["Team", "Round", "Member", "What", "Message"],
        ["<b>x</b>", "1", "bad", "member failed", "boom <i>"],
        ["<b>x</b>", "2", "–", "timeout", "timed out after 5 s"],
    ]
    assert cell_texts(cell(doc, "t1", 1)) == ("42.5", "completed", "127 tokens", "3.0 s")
    timed_out = cell(doc, "t1", 2)
    assert cell_texts(timed_out)[:3] == ("–", "timeout", "–")
    assert timed_out.find("a").attrs["title"] == "timed out after 5 s"
    assert doc.by_id("execution-judgments").rows()[1] == [
        "<b>x</b>",
        "1",
        "continue",
        "judgment",
        "0.25",
        "needs <em>more</em> work",
    ]
    assert doc.by_id("usage-by-model").rows()[1] == ["m1", "1", "100", "20", "120", "$0.5000"]


def test_unknown_execution_is_a_404_page(dashboard: httpx.Client, stored: Stored) -> None:
    for path in ("/executions/no-such-run", "/executions/no-such-run/stream"):
        response = dashboard.get(path)
        assert response.status_code == 404
        assert parse(response.text).find("p", class_="error-message").text == (
            f"no execution 'no-such-run' in {stored.ws / 'mixseek.db'}"
        )


# -- the live stream -----------------------------------------------------------------------


Event = tuple[str, str, str | None]  # name, data (its lines joined by newlines), id


def _event(block: list[str]) -> Event | None:
    """The event of a block of lines; None for a block without one (`retry:`, a comment)."""
    fields = [line.partition(": ") for line in block if not line.startswith(":")]
    names = [value for field, _, value in fields if field == "event"]
    if not names:
        return None
    data = "\n".join(value for field, _, value in fields if field == "data")
    ids = [value for field, _, value in fields if field == "id"]
    return names[0], data, ids[-1] if ids else None


def events(body: str) -> list[Event]:
    """The events of a whole text/event-stream body."""
    found = [_event(block.split("\n")) for block in body.split("\n\n")]
    return [event for event in found if event is not None]


class EventSource:
    """Follows a stream as a browser's EventSource does: when one ends (without the `end` event)
    it reconnects, sending the id of the last event that had one as `Last-Event-ID`."""

    def __init__(self, client: httpx.Client, path: str) -> None:
        self.client = client
        self.path = path
        self.last_id: str | None = None
        self.connections = 0

    def __iter__(self) -> Iterator[Event]:
        while True:
            headers = {"Last-Event-ID": self.last_id} if self.last_id else {}
            with self.client.stream("GET", self.path, headers=headers) as response:
                assert response.status_code == 200
                self.connections += 1
                block: list[str] = []
                for line in response.iter_lines():
                    if line:
                        block.append(line)
                        continue
                    event, block = _event(block), []
                    if event is None:
                        continue
                    if event[2] is not None:
                        self.last_id = event[2]
                    yield event
                    if event[0] == "end":
                        return


def read_until(source: Iterator[Event], last_event: str) -> dict[str, str]:
    """The data of the events up to and including the next one named `last_event`, by name."""
    found: dict[str, str] = {}
    for name, data, _ in source:
        found[name] = data
        if name == last_event:
            return found
    raise AssertionError(f"the stream ended before a {last_event!r} event")


def test_stream_of_a_finished_execution_sends_its_sections_then_ends(
    dashboard: httpx.Client, stored: Stored
) -> None:
    eid = stored.scripted_id
    response = dashboard.get(f"/executions/{eid}/stream")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    # a stream cut off under a running execution is reconnected, not every few milliseconds
    assert response.text.startswith(f"retry: {live.RECONNECT_MS}\n\n") and live.RECONNECT_MS >= 1000
    sent = events(response.text)
    assert [name for name, _, _ in sent] == [
        "header",
        "best",
        "grid",
        "leaderboard",
        "chart",
        "judgments",
        "usage",
        "failures",
        "end",
    ]
    assert sent[-1] == ("end", "completed", None)
    # the update's id comes with its last section: a browser that got it all resumes after it
    assert [event_id is not None for _, _, event_id in sent] == [False] * 7 + [True, False]
    # every data line of a multi-line section came through: the section is the page's, line for line
    body = page(dashboard, f"/executions/{eid}")
    sections = {name: data for name, data, _ in sent}
    assert parse(sections["grid"]).by_id("execution-grid").rows() == body.by_id("execution-grid").rows()
    assert (
        parse(sections["leaderboard"]).by_id("execution-leaderboard").rows()
        == body.by_id("execution-leaderboard").rows()
    )
    # a browser that saw the last update is only told that the execution has ended
    resumed = dashboard.get(f"/executions/{eid}/stream", headers={"Last-Event-ID": sent[-2][2] or ""})
    assert events(resumed.text) == [("end", "completed", None)]


def test_each_line_of_a_section_is_a_data_line_whatever_its_line_break() -> None:
    """A CR, LF or CRLF left inside a `data:` field would end it early in the browser: every line
    gets a field of its own, and a section's HTML (Markup) is sent as it is, never escaped."""
    section = Markup('<td title="a&amp;b">x</td>\r\n<td>y</td>\r<td>z</td>\n\n<td>w</td>')
    assert live.sse_event("grid", section, "id-1") == (
        'event: grid\ndata: <td title="a&amp;b">x</td>\ndata: <td>y</td>\ndata: <td>z</td>\n'
        "data: \ndata: <td>w</td>\nid: id-1\n\n"
    )
    assert live.sse_event("end", "completed") == "event: end\ndata: completed\n\n"


async def _new_running_execution(db: Path) -> None:
    """An execution owned by this process (so running while the test runs): t1's round 1 started."""
    async with AggregationStore(db) as store:
        await store.create_execution("live-1", "go", {})
        await store.mark_round_started(RoundKey("live-1", "t1", 1), started_at=T0)


async def _save_round(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.save_round(_round("live-1", "t1", "Team One", 1, 64.0))


async def _finish(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.finish_execution("live-1", "completed", None)


def test_stream_of_a_running_execution_sends_new_rounds_and_ends_with_it(
    tmp_path: Path, serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a page listens, another writer saves a round and ends the execution: the writes go
    through (the dashboard does not hold the file) and each shows up, across the streams that
    end and are reconnected meanwhile."""
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.2)  # many reconnections
    ws = tmp_path / "ws"
    ws.mkdir()
    db = ws / "mixseek.db"
    asyncio.run(_new_running_execution(db))
    served = serve(ws, live_poll_seconds=0.05)

    with httpx.Client(base_url=served.url, timeout=60) as client:
        source = EventSource(client, "/executions/live-1/stream")
        updates = iter(source)
        first = read_until(updates, "failures")
        assert cell_texts(cell(parse(first["grid"]), "t1", 1))[:2] == ("–", "running")
        assert parse(first["header"]).by_id("execution-status").text == "running"

        asyncio.run(_save_round(db))
        update = read_until(updates, "failures")
        assert cell_texts(cell(parse(update["grid"]), "t1", 1))[:2] == ("64.0", "completed")
        board = parse(update["leaderboard"]).by_id("execution-leaderboard").rows()
        assert board[1][:3] == ["1", "Team One", "64.0"]

        asyncio.run(_finish(db))
        final = read_until(updates, "end")
        assert final["end"] == "completed"
        assert parse(final["header"]).by_id("execution-status").text == "completed"
        assert list(updates) == []  # no reconnection after the end


def test_a_reconnected_stream_sends_only_what_changed(
    tmp_path: Path, serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.5)
    ws = tmp_path / "ws"
    ws.mkdir()
    db = ws / "mixseek.db"
    asyncio.run(_new_running_execution(db))
    served = serve(ws, live_poll_seconds=0.05)

    with httpx.Client(base_url=served.url, timeout=60) as client:
        first = events(client.get("/executions/live-1/stream").text)  # ends after STREAM_SECONDS
        names = [name for name, _, _ in first if name != "duration"]  # (the duration grows meanwhile)
        assert names == ["header", "best", "grid", "leaderboard", "chart", "judgments", "usage", "failures"]
        last_id = next(event_id for _, _, event_id in reversed(first) if event_id is not None)
        assert last_id is not None
        same = client.get("/executions/live-1/stream", headers={"Last-Event-ID": last_id})
        # nothing changed since: nothing sent but the duration, which grows while it runs
        assert same.text.startswith(f"retry: {live.RECONNECT_MS}\n\n")
        assert {name for name, _, _ in events(same.text)} == {"duration"}
        asyncio.run(_save_round(db))
        changed = events(client.get("/executions/live-1/stream", headers={"Last-Event-ID": last_id}).text)
        assert changed[0][0] == "header"
        grid = next(data for name, data, _ in changed if name == "grid")
        assert cell_texts(cell(parse(grid), "t1", 1))[:2] == ("64.0", "completed")
        asyncio.run(_finish(db))


def _seconds(text: str) -> float:
    """A duration as the page prints it under a minute ("12.3 s")."""
    assert text.endswith(" s") and "min" not in text, text
    return float(text.removesuffix(" s"))


def test_a_running_execution_shows_its_duration_so_far(
    tmp_path: Path, serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round may run for minutes without a row changing: the page and its stream show the
    duration growing all the same (it stayed at its first reading)."""
    monkeypatch.setattr(live, "STREAM_SECONDS", 1.5)
    ws = tmp_path / "ws"
    ws.mkdir()
    served = serve(ws, live_poll_seconds=0.05)
    created = time.monotonic()
    asyncio.run(_new_running_execution(ws / "mixseek.db"))

    with httpx.Client(base_url=served.url, timeout=60) as client:
        first = _seconds(page(client, "/executions/live-1").by_id("execution-duration").text)
        time.sleep(1.5)  # nothing is written meanwhile
        shown = page(client, "/executions/live-1").by_id("execution-duration")
        read = time.monotonic()
        # (each figure is rounded to a tenth)
        assert first + 1.4 <= _seconds(shown.text) <= read - created + 0.05
        assert shown.attrs["sse-swap"] == "duration"  # the live stream's `duration` events update it

        sent = events(client.get("/executions/live-1/stream").text)  # ends after STREAM_SECONDS
        assert [name for name, _, _ in sent][:8] == [
            "header",
            "best",
            "grid",
            "leaderboard",
            "chart",
            "judgments",
            "usage",
            "failures",
        ]
        header = _seconds(parse(sent[0][1]).by_id("execution-duration").text)
        later = [_seconds(data) for name, data, _ in sent[8:] if name == "duration"]
        assert [name for name, _, _ in sent[8:]] == ["duration"] * len(later)
        assert later == sorted(set(later)) and later[0] > header  # sent as the text changes
        assert later[-1] >= header + 1.2  # the stream's last reading, STREAM_SECONDS after its first


# -- the read the page makes ---------------------------------------------------------------

ROUND_TEXTS = {"submission", "submission_format", "feedback", "metrics", "member_submissions", "usage"}


async def _views(db: Path, execution_id: str) -> tuple[Any, Any]:
    async with AggregationStore(db, read_only=True) as store:
        return await store.get_execution_view(execution_id), await store.get_execution_outline(execution_id)


@pytest.mark.parametrize("which", ["scripted", "hand-made", "running"])
def test_the_page_reads_the_view_without_the_round_texts(stored: Stored, tmp_path: Path, which: str) -> None:
    if which == "running":  # no summary: the best submission is found from the rows
        db = tmp_path / "mixseek.db"
        asyncio.run(_new_running_execution(db))
        asyncio.run(_save_round(db))
        execution_id = "live-1"
    else:
        db = stored.ws / "mixseek.db"
        execution_id = stored.scripted_id if which == "scripted" else HAND_ID
    full, outline = asyncio.run(_views(db, execution_id))
    # (a running execution's duration is the time until each read)
    texts = {"duration_seconds": True, "teams": {"__all__": {"rounds": {"__all__": ROUND_TEXTS}}}}
    assert outline.model_dump(exclude=texts) == full.model_dump(exclude=texts)
    assert outline.best == full.best
    assert (outline.best is not None) == (which != "hand-made")  # its summary names no best
    for team_out, team_full in zip(outline.teams, full.teams, strict=True):
        for r_out, r_full in zip(team_out.rounds, team_full.rounds, strict=True):
            assert (r_out.submission, r_out.feedback, r_out.metrics) == (None, None, {})
            assert r_out.member_submissions == [a for a in r_full.member_submissions if not a.succeeded]
            assert content.round_tokens(r_out) == content.round_tokens(r_full)
    assert [(f.round_number, f.member, f.message) for f in content.failures(outline)] == [
        (f.round_number, f.member, f.message) for f in content.failures(full)
    ]


def test_the_outline_is_read_again_only_when_the_execution_changed(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    asyncio.run(_new_running_execution(db))

    async def since(known: Any) -> Any:
        async with AggregationStore(db, read_only=True) as store:
            return await store.get_execution_outline_since("live-1", known)

    progress, outline = asyncio.run(since(None))
    assert outline is not None and outline.status == "running"
    assert asyncio.run(since(progress)) == (progress, None)  # nothing changed: nothing read
    asyncio.run(_save_round(db))
    changed, outline = asyncio.run(since(progress))
    assert changed != progress and outline is not None and outline.teams[0].rounds[0].score == 64.0
    asyncio.run(_finish(db))
    ended, outline = asyncio.run(since(changed))
    assert (ended.status, outline.status if outline else None) == ("completed", "completed")
    assert asyncio.run(since(ended)) == (ended, None)


def test_a_page_shows_the_rows_saved_since_it_was_last_shown(
    tmp_path: Path, serve: Callable[..., Served]
) -> None:
    """The sections kept from the last rendering are used only while the execution's rows are
    unchanged."""
    db = tmp_path / "ws" / "mixseek.db"
    db.parent.mkdir()
    asyncio.run(_new_running_execution(db))
    with httpx.Client(base_url=serve(db.parent).url, timeout=60) as client:
        before = page(client, "/executions/live-1")
        assert cell_texts(cell(before, "t1", 1))[:2] == ("–", "running")
        assert (
            page(client, "/executions/live-1").by_id("execution-grid").rows()
            == before.by_id("execution-grid").rows()
        )
        asyncio.run(_save_round(db))
        assert cell_texts(cell(page(client, "/executions/live-1"), "t1", 1))[:2] == ("64.0", "completed")
        asyncio.run(_finish(db))
        after = page(client, "/executions/live-1")
        assert after.by_id("execution-status").text == "completed"
        assert "sse-connect" not in client.get("/executions/live-1").text
