"""The compare page (`/compare?a=ID&b=ID`): two real stored executions side by side, their teams
matched by team_id, and the form that picks them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from e2e.scripted import World, write_workspace

from .conftest import Served
from .stored_runs import run_exec

SCREENSHOTS = Path(__file__).parents[2] / "docs" / "screenshots"


@dataclass(frozen=True)
class Pair:
    root: Path
    a: str
    b: str


def _orchestrator(root: Path, name: str, max_rounds: int, teams: tuple[str, ...]) -> Path:
    path = root / "configs" / name
    listed = "".join(f'[[orchestrator.teams]]\nconfig = "agents/{team}.toml"\n' for team in teams)
    path.write_text(
        f"[orchestrator]\nmax_rounds = {max_rounds}\nmin_rounds = 1\nmax_concurrent_teams = 2\n{listed}",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    """A: alpha and beta, up to four rounds (alpha 80.0 in round 3, beta 72.0 in round 2).
    B: beta and gamma, two rounds (gamma 75.0, beta 72.0). scripted.py decides the scores."""
    root = write_workspace(tmp_path_factory.mktemp("compare") / "ws")
    a = run_exec(
        root, "prompt A", World().models(), "-c", str(_orchestrator(root, "a.toml", 4, ("alpha", "beta")))
    )
    b = run_exec(
        root, "prompt B", World().models(), "-c", str(_orchestrator(root, "b.toml", 2, ("beta", "gamma")))
    )
    return Pair(root, a, b)


def cells(page: Any, selector: str) -> list[list[str]]:
    found: list[list[str]] = page.eval_on_selector_all(
        selector, "rows => rows.map(r => [...r.cells].map(c => c.innerText.replace(/\\s+/g, ' ').trim()))"
    )
    return found


def test_two_executions_side_by_side(pair: Pair, serve: Callable[..., Served], page: Any) -> None:
    served = serve(pair.root)
    page.goto(f"{served.url}/compare?a={pair.a}&b={pair.b}")

    facts = {row[0]: row[1:] for row in cells(page, "#compare-facts tbody tr")}
    assert facts["Prompt"] == ["prompt A", "prompt B", "different"]
    assert facts["Status"] == ["completed", "completed", ""]
    assert facts["Teams"] == ["2", "2", "±0"]
    assert facts["Rounds run"] == ["3", "2", "-1"]
    assert facts["Best"] == ["Alpha (80.0, round 3)", "Gamma (75.0, round 2)", "-5.0"]
    assert facts["Cost"] == ["–", "–", ""]
    assert facts["Tokens"][2] != ""
    assert list(facts) == ["Prompt", "Status", "Teams", "Rounds run", "Best", "Tokens", "Cost", "Duration"]

    # alpha only in A, beta in both (one line), gamma only in B
    assert cells(page, "#compare-team-table tbody tr") == [
        ["Alpha alpha", "1", "80.0 (round 3)", "3", "not in this execution", ""],
        ["Beta beta", "2", "72.0 (round 2)", "2", "2", "72.0 (round 2)", "2", "±0"],
        ["Gamma gamma", "not in this execution", "1", "75.0 (round 2)", "2", ""],
    ]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1300, "height": 600})
    page.screenshot(path=str(SCREENSHOTS / "compare.png"), full_page=True)

    # a best score leads to that round's submission
    page.click("#compare-team-table tr[data-team='gamma'] .team-best a")
    page.wait_for_url(f"**/executions/{pair.b}/teams/gamma/rounds/2")
    assert page.inner_text("#overall-score") == "75.0"


def test_the_form_picks_a_pair_and_swaps_it(pair: Pair, serve: Callable[..., Served], page: Any) -> None:
    served = serve(pair.root)
    page.goto(f"{served.url}/compare")
    assert page.inner_text("#compare-hint") == "Pick two executions to see them side by side."
    options = page.eval_on_selector_all("#compare-a option", "els => els.map(e => e.value)")
    assert options == ["", pair.b, pair.a]  # the most recently started first
    page.select_option("#compare-a", pair.a)
    page.select_option("#compare-b", pair.b)
    page.click("form.compare-form button")
    page.wait_for_url(f"**/compare?a={pair.a}&b={pair.b}")
    assert page.locator("#compare-team-table").count() == 1
    page.click("#compare-swap")
    page.wait_for_url(f"**/compare?a={pair.b}&b={pair.a}")
    assert cells(page, "#compare-facts tbody tr[data-fact='Best']") == [
        ["Best", "Gamma (75.0, round 2)", "Alpha (80.0, round 3)", "+5.0"]
    ]
    assert page.eval_on_selector("#compare-a", "s => s.value") == pair.b


def test_with_one_execution_given_the_form_keeps_it(pair: Pair, serve: Callable[..., Served]) -> None:
    served = serve(pair.root)
    response = httpx.get(f"{served.url}/compare", params={"a": pair.a})
    assert response.status_code == 200
    assert f'<option value="{pair.a}" selected>' in response.text
    assert 'id="compare-facts"' not in response.text


def test_an_unknown_execution_is_a_404_page(pair: Pair, serve: Callable[..., Served]) -> None:
    served = serve(pair.root)
    response = httpx.get(f"{served.url}/compare", params={"a": pair.a, "b": "nope"})
    assert response.status_code == 404
    assert "no execution &#39;nope&#39; in" in response.text


def test_an_empty_workspace_has_nothing_to_compare(tmp_path: Path, serve: Callable[..., Served]) -> None:
    served = serve(tmp_path)
    response = httpx.get(f"{served.url}/compare")
    assert response.status_code == 200
    assert "No executions yet: there is nothing to compare." in response.text
