"""The submission page (`/executions/{id}/teams/{team_id}/rounds/{n}`) of real stored executions:
what a user reads there (scores, member answers, the judgment, the message history, the diff
against the previous round) in Chromium, and the HTTP answers for rounds that do not exist."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from e2e.scripted import World, write_workspace
from e2e.strategies import StrategyWorld, write_strategies_workspace
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundKey, RoundRecord

from .conftest import Served
from .stored_runs import in_thread, run_exec

SCREENSHOTS = Path(__file__).parents[2] / "docs" / "screenshots"


@dataclass(frozen=True)
class Stored:
    root: Path
    execution_id: str


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    """Three teams up to four rounds (tests/e2e/scripted.py): alpha stops after round 3."""
    root = write_workspace(tmp_path_factory.mktemp("submission") / "ws")
    return Stored(root, run_exec(root, "最良の回答を", World().models()))


@pytest.fixture(scope="module")
def strategies(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    """A selective, a broadcast and a workflow team (tests/e2e/strategies.py), two rounds."""
    root = write_strategies_workspace(tmp_path_factory.mktemp("strategies") / "ws")
    return Stored(root, run_exec(root, "最良の回答を", StrategyWorld().models()))


def url(served: Served, stored: Stored, team_id: str, round_number: int | str) -> str:
    return f"{served.url}/executions/{stored.execution_id}/teams/{team_id}/rounds/{round_number}"


def rows(page: Any, selector: str) -> list[list[str]]:
    """The text of each cell (th and td) of the rows `selector` matches."""
    found: list[list[str]] = page.eval_on_selector_all(
        selector, "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )
    return found


def test_a_round_shows_its_scores_judgment_members_and_diff(
    scripted: Stored, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(scripted.root)
    page.goto(url(served, scripted, "alpha", 2))

    assert page.inner_text("h1").split() == ["Alpha", "alpha,", "round", "2", "completed"]
    assert page.inner_text("#submission-body") == "alpha answer v2 (member did round 2)"
    assert page.inner_text("#overall-score") == "75.0"
    assert page.inner_text("#round-tokens") == "439"  # team 230 + 35, evaluation 150 + 24
    assert rows(page, "#metrics tbody tr") == [
        ["clarity_coherence", "75.0", "alpha answer v2 ok"],
        ["coverage", "75.0", "alpha answer v2 ok"],
        ["relevance", "75.0", "alpha answer v2 ok"],
    ]
    assert page.inner_text("#metrics-overall") == "75.0"
    assert page.inner_text("#feedback") == (
        "[clarity_coherence] alpha answer v2 ok\n"
        "[coverage] alpha answer v2 ok\n"
        "[relevance] alpha answer v2 ok"
    )
    assert page.inner_text("#judgment-decision") == "continue"
    assert page.inner_text("#judgment-confidence") == "0.80"
    assert page.inner_text("#judgment-reasoning") == "alpha after 2"

    (member,) = rows(page, "#member-table tr.member")
    assert member[:4] == ["helper", "plain", "SUCCESS", "35 (30 / 5)"]
    assert re.fullmatch(r"\d+ ms", member[4]), member[4]  # its time
    assert page.inner_text("#member-table .member-content") == "member did round 2"

    assert page.inner_text("#diff-summary") == "Against round 1: +1 −1 line(s)"
    assert rows(page, "table.diff tr") == [
        ["@@ -1,1 +1,1 @@"],
        ["1", "", "-", "alpha answer v1 (member did round 1)"],
        ["", "1", "+", "alpha answer v2 (member did round 2)"],
    ]
    assert page.eval_on_selector_all("table.diff del", "els => els.map(e => e.textContent)") == ["v1", "1"]
    assert page.eval_on_selector_all("table.diff ins", "els => els.map(e => e.textContent)") == ["v2", "2"]

    page.click("#transcript > summary")
    summaries = page.eval_on_selector_all(
        "#transcript > details > summary", "els => els.map(e => e.innerText.replace(/\\s+/g, ' ').trim())"
    )
    assert summaries == [
        "1. Request Instructions, User prompt",
        "2. Response from leader-alpha Tool call: delegate_to_helper 100 in / 10 out",
        "3. Request Tool return: delegate_to_helper",
        "4. Response from leader-alpha Text 100 in / 20 out",
    ]
    parts = page.eval_on_selector_all(
        "#transcript .part", "els => els.map(e => [e.className, e.querySelector('pre').textContent])"
    )
    assert parts[2:] == [
        ["part part-tool-call", '{\n  "task": "round 2"\n}'],
        ["part part-tool-return", "member did round 2"],
        ["part part-text", "alpha answer v2 (member did round 2)"],
    ]
    assert parts[1][0] == "part part-user" and "## ラウンド 1" in parts[1][1]

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1300, "height": 800})
    page.evaluate("() => window.scrollTo(0, 0)")  # table headers are sticky
    page.screenshot(path=str(SCREENSHOTS / "submission.png"), full_page=True)

    assert page.get_attribute("#previous-round", "href") == (
        f"/executions/{scripted.execution_id}/teams/alpha/rounds/1"
    )
    page.click("#next-round")
    page.wait_for_url("**/teams/alpha/rounds/3")
    assert page.inner_text("#judgment-decision") == "stop"
    assert page.locator("#next-round").count() == 0
    page.click("#back-to-execution")
    page.wait_for_url(f"**/executions/{scripted.execution_id}")


def test_a_first_round_has_nothing_to_compare(
    scripted: Stored, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(scripted.root)
    page.goto(url(served, scripted, "gamma", 1))
    assert (
        page.inner_text("#diff-none")
        == "Nothing to compare: this is the team's first round with a submission."
    )
    assert page.locator("table.diff").count() == 0
    assert page.locator("#previous-round").count() == 0
    assert page.inner_text("#next-round") == "Round 2 →"


def test_a_workflow_team_shows_the_step_of_each_answer(
    strategies: Stored, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(strategies.root)
    page.goto(url(served, strategies, "gamma", 2))
    headings = page.eval_on_selector_all("#member-table thead th", "els => els.map(e => e.innerText)")
    assert headings[:5] == ["Agent", "Type", "Step", "Status", "Tokens (in / out)"]
    members = [(r[0], r[2], r[3]) for r in rows(page, "#member-table tr.member")]
    assert sorted(members) == [
        ("draft_a", "draft", "SUCCESS"),
        ("draft_b", "draft", "SUCCESS"),
        ("editor", "edit", "SUCCESS"),
        ("researcher", "research", "SUCCESS"),
    ]
    contents = page.eval_on_selector_all(".member-content", "els => els.map(e => e.innerText)")
    assert "gamma answer v2 (draft A from facts r2 + draft B from facts r2)" in contents
    assert (
        page.inner_text("#submission-body")
        == "gamma answer v2 (draft A from facts r2 + draft B from facts r2)"
    )


def test_a_leader_team_has_no_step_column(
    strategies: Stored, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(strategies.root)
    page.goto(url(served, strategies, "beta", 1))
    headings = page.eval_on_selector_all("#member-table thead th", "els => els.map(e => e.innerText)")
    assert "Step" not in headings
    assert sorted(r[0] for r in rows(page, "#member-table tr.member")) == ["critic", "scout"]


@pytest.mark.parametrize(
    ("team_id", "round_number", "message"),
    [
        ("zeta", 1, "no team 'zeta' in execution '{id}'"),
        ("alpha", 9, "team 'alpha' has no round 9 in execution '{id}'"),
        ("alpha", 0, "team 'alpha' has no round 0 in execution '{id}'"),
    ],
)
def test_unknown_team_or_round_is_a_404_page(
    scripted: Stored, serve: Callable[..., Served], team_id: str, round_number: int, message: str
) -> None:
    served = serve(scripted.root)
    response = httpx.get(url(served, scripted, team_id, round_number))
    assert response.status_code == 404
    assert message.format(id=scripted.execution_id).replace("'", "&#39;") in response.text


def test_unknown_execution_and_a_round_that_is_no_number_are_404(
    scripted: Stored, serve: Callable[..., Served]
) -> None:
    served = serve(scripted.root)
    response = httpx.get(f"{served.url}/executions/nope/teams/alpha/rounds/1")
    assert response.status_code == 404
    assert "no execution &#39;nope&#39; in" in response.text
    assert httpx.get(url(served, scripted, "alpha", "two")).status_code == 404


def _record(execution_id: str, round_number: int, content: str, history: str | None) -> RoundRecord:
    now = datetime.now(UTC)
    return RoundRecord(
        execution_id=execution_id,
        team_id="t",
        team_name="T",
        round_number=round_number,
        submission_content=content,
        evaluation_score=50.0,
        score_details={"relevance": {"score": 50.0, "comment": "ok"}},
        message_history=history,
        started_at=now,
        ended_at=now,
    )


def test_rounds_written_through_the_store_api(tmp_path: Path, serve: Callable[..., Served]) -> None:
    """A history the page cannot read, a failed round and a running one, as another writer (an
    import, an execution under way) may leave them."""
    db = tmp_path / "ws" / "mixseek.db"

    async def write() -> None:
        async with AggregationStore(db) as store:
            await store.create_execution("e1", "prompt", {})
            await store.save_round(_record("e1", 1, "one\ntwo\n", json.dumps([{"kind": "bogus"}])))
            await store.mark_round_failed(RoundKey("e1", "t", 2), "failed", "leader crashed: <b>boom</b>")
            await store.mark_round_started(RoundKey("e1", "u", 1))

    in_thread(lambda: asyncio.run(write()))
    served = serve(tmp_path / "ws")

    first = httpx.get(f"{served.url}/executions/e1/teams/t/rounds/1").text
    assert "The stored message history could not be read: 1 validation error(s)" in first
    assert "Input tag &#39;bogus&#39; found using &#39;kind&#39;" in first

    failed = httpx.get(f"{served.url}/executions/e1/teams/t/rounds/2").text
    assert '<p class="error-message" id="round-error">leader crashed: &lt;b&gt;boom&lt;/b&gt;</p>' in failed
    assert "Nothing to compare: this round has no submission." in failed

    running = httpx.get(f"{served.url}/executions/e1/teams/u/rounds/1")
    assert running.status_code == 200
    assert "No submission yet: the round is running." in running.text
    assert "Not evaluated." in running.text
    assert "No message history was stored for this round." in running.text
