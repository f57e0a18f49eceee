"""Cost, latency and the cost–quality frontier of a bench, on outcomes written by hand (any score scale)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mixseek.tasksets.report import RunOutcome, build_report
from mixseek.tasksets.tasks import load_tasks


def test_frontier_keeps_the_teams_no_other_beats_on_both_score_and_cost(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "x", "prompt": "p"}\n{"id": "y", "prompt": "q"}\n', encoding="utf-8")
    # scores below 0 (a scale that is not 0-100); per team: mean score, cost per task
    #   a -20 0.30 (best score)   b -30 0.10 (cheapest at its score)   c -40 0.20 (b beats it on both)
    #   d -35 0.10 (b: same cost, higher score)   e -10, but a price unknown: off the frontier
    scores = {"a": -20.0, "b": -30.0, "c": -40.0, "d": -35.0, "e": -10.0}
    costs = [
        {"a": 0.2, "b": 0.1, "c": 0.15, "d": 0.05, "e": 0.01},
        {"a": 0.4, "b": 0.1, "c": 0.25, "d": 0.15, "e": None},
    ]
    seconds = [{"a": 1.0, "b": 5.0}, {"a": 3.0, "b": 5.0}]
    outcomes = [
        RunOutcome(task, 1, f"e{i}", "completed", scores, costs=costs[i], seconds=seconds[i])
        for i, task in enumerate(("x", "y"))
    ]
    report = build_report("bench-x", load_tasks(path), 1, {t: t.upper() for t in scores}, outcomes, missing=0)

    data = report.as_json()
    assert data["frontier"] == ["a", "b"]
    teams = {t["team_id"]: t for t in data["teams"]}
    assert teams["a"]["cost"] == {"total": pytest.approx(0.6), "per_task": pytest.approx(0.3)}
    assert teams["c"]["cost"] == {"total": pytest.approx(0.4), "per_task": pytest.approx(0.2)}
    assert teams["e"]["cost"] == {"total": None, "per_task": None} and not teams["e"]["on_frontier"]
    assert teams["a"]["latency_seconds"] == {"p50": pytest.approx(2.0), "p95": pytest.approx(2.9)}
    assert teams["b"]["latency_seconds"] == {"p50": 5.0, "p95": 5.0}
    assert teams["c"]["latency_seconds"] == {"p50": None, "p95": None}
    assert [t["on_frontier"] for t in data["teams"]] == [t["team_id"] in ("a", "b") for t in data["teams"]]


def test_equal_teams_are_both_on_the_frontier(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "x", "prompt": "p"}\n', encoding="utf-8")
    outcome = RunOutcome("x", 1, "e", "completed", {"a": 0.5, "b": 0.5}, costs={"a": 1.0, "b": 1.0})
    report = build_report("bench-x", load_tasks(path), 1, {"a": "A", "b": "B"}, [outcome], missing=0)
    assert report.as_json()["frontier"] == ["a", "b"]
