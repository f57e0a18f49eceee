"""The dashboard's score chart in a real Chromium for a run scored by a Sharpe ratio: the axis spans the
negative scores and each team's point sits at its score (alpha 1.2 above beta −0.4 above gamma −100)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from scales.sharpe_world import write_sharpe_workspace
from scales.test_sharpe_end_to_end import mixseek
from ui.conftest import Served


@pytest.fixture(scope="module")
def sharpe_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Run before the browser starts (tests name it first)."""
    ws = write_sharpe_workspace(tmp_path_factory.mktemp("sharpe") / "ws")
    done = mixseek("exec", "Write a trading strategy", "-w", str(ws), "-f", "json")
    assert done.returncode == 0, done.stderr
    return ws, json.loads(done.stdout)["execution_id"]


def test_the_dashboard_chart_spans_the_negative_scores(
    sharpe_run: tuple[Path, str], serve: Callable[..., Served], page: Any
) -> None:
    ws, execution_id = sharpe_run
    served = serve(ws)
    page.goto(f"{served.url}/executions/{execution_id}")
    chart = page.locator("#chart svg")
    expect(chart).to_be_visible()
    ticks = chart.locator("g.chart-axes text[text-anchor='end']").all_text_contents()
    assert ticks == ["-100", "-50", "0", "50"]
    expect(chart.locator("polyline")).to_have_count(3)
    heights = {}
    for team in ("alpha", "beta", "gamma"):
        point = chart.locator(f"g.chart-series[data-team='{team}'] circle").last
        box = point.bounding_box()
        assert box is not None
        heights[team] = box["y"]
        assert (
            point.locator("title")
            .text_content()
            .endswith({"alpha": "1.2", "beta": "-0.4", "gamma": "-100.0"}[team])
        )
    assert heights["alpha"] < heights["beta"] < heights["gamma"]  # higher is better: drawn higher
    gamma_tick = chart.locator("g.chart-axes text", has_text="-100").bounding_box()
    assert (
        gamma_tick is not None
        and abs(gamma_tick["y"] + gamma_tick["height"] / 2 - heights["gamma"] - 3.5) < 6
    )
    expect(page.locator("#leaderboard tr", has_text="Beta")).to_contain_text("-0.4")
    expect(page.locator("#leaderboard tr", has_text="Gamma")).to_contain_text("-100.0")
