"""The bench report's rules where runs are incomplete: a team that scored nothing in a run scores 0
and ranks last; a run in which no team scored is left out; runs still missing are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from mixseek.tasksets.report import RunOutcome, build_report
from mixseek.tasksets.tasks import load_tasks


def test_unscored_team_counts_as_zero_and_a_run_nobody_scored_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        '{"id": "a", "prompt": "p", "tags": ["x"]}\n{"id": "b", "prompt": "q"}\n', encoding="utf-8"
    )
    tasks = load_tasks(path)
    outcomes = [
        RunOutcome("a", 1, "e1", "partial_failure", {"one": 40.0}),  # "two" failed: 0, last
        RunOutcome("b", 1, "e2", "failed", {}),  # nobody scored: decides nothing
        RunOutcome("a", 2, "e3", "completed", {"one": 30.0, "two": 30.0}),  # a tie: shared win
    ]
    report = build_report("bench-x", tasks, 2, {"one": "One", "two": "Two"}, outcomes, missing=1)

    data = report.as_json()
    assert data["runs"] == {"planned": 4, "scored": 2, "unscored": 1, "missing": 1}
    teams = {t["team_id"]: t for t in data["teams"]}
    assert teams["one"]["wins"] == 1.5 and teams["two"]["wins"] == 0.5
    assert teams["one"]["mean_score"]["mean"] == pytest.approx(35.0)
    assert teams["two"]["mean_score"]["mean"] == pytest.approx(15.0)
    assert teams["one"]["mean_rank"]["mean"] == pytest.approx((1 + 1.5) / 2)
    assert teams["two"]["mean_rank"]["mean"] == pytest.approx((2 + 1.5) / 2)
    assert data["pairwise"] == [
        {
            "team": "one", "opponent": "two", "wins": 1, "losses": 0, "ties": 1,
            "task_wins": 1, "task_losses": 0, "task_ties": 0, "p_value": 1.0,
        }
    ]  # fmt: skip
    assert data["tags"] == [
        {"tag": "x", "runs": 2, "mean_scores": {"one": 35.0, "two": 15.0}, "winners": ["one"]}
    ]
    assert [(t["task_id"], t["runs"], t["winners"]) for t in data["tasks"]] == [
        ("a", 2, ["one"]),
        ("b", 0, []),
    ]
