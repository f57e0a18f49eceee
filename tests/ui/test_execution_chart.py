"""The score-by-round chart (`mixseek.report.charts`): well-formed SVG, a line per team, escaped text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from typing import Any

from mixseek.report.charts import PALETTE, score_chart_svg
from mixseek.storage.views import ExecutionView

SVG = "{http://www.w3.org/2000/svg}"
EVIL = "<b>x</b>"


def _round(number: int, score: float | None, status: str = "completed") -> dict[str, Any]:
    return {
        "round_number": number,
        "status": status,
        "score": score,
        "is_final": False,
        "started_at": None,
        "ended_at": None,
        "metrics": {},
        "feedback": None,
        "judgment": {},
        "members": {},
        "error": None,
        "submission": None,
        "submission_format": None,
        "member_submissions": [],
        "usage": None,
    }


def _team(team_id: str, name: str, scores: list[float | None]) -> dict[str, Any]:
    rounds = [_round(n, s, "completed" if s is not None else "failed") for n, s in enumerate(scores, start=1)]
    return {
        "team_id": team_id,
        "team_name": name,
        "position": None,
        "status": "completed",
        "rounds_completed": 0,
        "best_round": None,
        "best_score": None,
        "exit_reason": None,
        "error": None,
        "rounds": rounds,
    }


def view(*teams: dict[str, Any], rounds_run: int = 3) -> ExecutionView:
    return ExecutionView.model_validate(
        {
            "execution_id": "e1",
            "user_prompt": "p",
            "status": "completed",
            "stop_reason": None,
            "stop_detail": None,
            "degraded_reasons": [],
            "started_at": datetime(2030, 1, 1, tzinfo=UTC),
            "ended_at": None,
            "duration_seconds": 1.0,
            "rounds_run": rounds_run,
            "leaderboard": [],
            "teams": list(teams),
            "best": None,
            "usage": {},
            "usage_by_site": {},
            "usage_by_model": {},
        }
    )


THREE = view(
    _team("beta", "Beta", [70.0, 72.0]),
    _team("alpha", EVIL, [60.0, None, 80.0]),
    _team("gamma", "Gamma\x1b[2J", [50.0, 75.0, 99.0]),
)


def test_chart_is_well_formed_svg_with_one_line_and_marker_per_scored_round() -> None:
    root = ET.fromstring(str(score_chart_svg(THREE)))
    assert root.tag == f"{SVG}svg"
    series = root.findall(f"{SVG}g[@class='chart-series']")
    assert [g.get("data-team") for g in series] == ["beta", "alpha", "gamma"]
    assert [len(g.findall(f"{SVG}polyline")) for g in series] == [1, 1, 1]
    assert [len(g.findall(f"{SVG}circle")) for g in series] == [2, 2, 3]  # alpha's failed round has no point
    titles = [c.findtext(f"{SVG}title") for c in series[1].findall(f"{SVG}circle")]
    assert titles == [f"{EVIL}, round 1: 60.0", f"{EVIL}, round 3: 80.0"]
    # scores map onto a 0-100 axis: the same score, the same height
    heights = {
        float(c.get("cy", ""))
        for g in series
        for c in g.findall(f"{SVG}circle")
        if "75.0" in c.findtext(f"{SVG}title", "")
    }
    assert len(heights) == 1
    legend = [
        t.text for t in root.iter(f"{SVG}text") if t.text and t.text.startswith(("Beta", "<b>", "Gamma"))
    ]
    assert legend == ["Beta", EVIL, "Gamma"]  # controls stripped from names


def test_team_names_are_escaped_and_no_inline_style_is_used() -> None:
    svg = str(score_chart_svg(THREE))
    assert EVIL not in svg and "&lt;b&gt;x&lt;/b&gt;" in svg
    assert "\x1b" not in svg
    assert "style=" not in svg and "<script" not in svg


def test_colours_follow_team_ids_so_a_reordered_leaderboard_keeps_them() -> None:
    def colours(v: ExecutionView) -> dict[str, str]:
        root = ET.fromstring(str(score_chart_svg(v)))
        return {
            g.get("data-team", ""): g.find(f"{SVG}polyline").get("stroke", "")  # type: ignore[union-attr]
            for g in root.findall(f"{SVG}g[@class='chart-series']")
        }

    reordered = view(*reversed([t.model_dump() for t in THREE.teams]))
    assert (
        colours(THREE) == colours(reordered) == {"alpha": PALETTE[0], "beta": PALETTE[1], "gamma": PALETTE[2]}
    )


def test_output_is_deterministic_and_the_legend_grows_with_teams() -> None:
    assert score_chart_svg(THREE) == score_chart_svg(THREE)
    many = view(*[_team(f"t{i:02d}", f"Team {i}", [float(i)]) for i in range(64)], rounds_run=1)
    root = ET.fromstring(str(score_chart_svg(many, width=720, height=320)))
    assert len(root.findall(f"{SVG}g[@class='chart-series']")) == 64
    assert int(root.get("height", "")) > 320
    dashed = {
        g.find(f"{SVG}polyline").get("stroke-dasharray")
        for g in root.findall(f"{SVG}g[@class='chart-series']")
    }  # type: ignore[union-attr]
    assert len(dashed) == 4  # past ten teams, colours repeat with another dash pattern


def test_a_view_without_scores_says_so() -> None:
    root = ET.fromstring(str(score_chart_svg(view(_team("a", "A", [None]), rounds_run=1))))
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "chart-empty"] == ["No scores yet"]
    assert root.find(f"{SVG}g[@class='chart-series']/{SVG}polyline").get("points") == ""  # type: ignore[union-attr]
