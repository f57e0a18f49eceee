"""Bench statistics on a scale below 0: a team without a score in a run counts as that run's worst, not as 0
(which would beat every negative score)."""

from __future__ import annotations

from pathlib import Path

from mixseek.tasksets.report import RunOutcome, build_report
from mixseek.tasksets.tasks import BenchTask, TaskSet


def test_a_team_without_a_score_ranks_last_among_negative_scores() -> None:
    tasks = TaskSet(Path("tasks.jsonl"), (BenchTask("t1", "trade"),), "0" * 64)
    outcome = RunOutcome("t1", 1, "e1", "completed", {"alpha": -0.4, "beta": -2.5, "gamma": None})
    report = build_report("b1", tasks, 1, {"alpha": "A", "beta": "B", "gamma": "G"}, [outcome], 0)
    teams = {t.team_id: t for t in report.teams}
    assert teams["alpha"].win_rate.mean == 1.0 and teams["gamma"].win_rate.mean == 0.0
    assert teams["gamma"].score.mean == -2.5  # the run's lowest score, tied with beta
    assert teams["gamma"].rank.mean == 2.5 and teams["beta"].rank.mean == 2.5
    pairs = {(p.team, p.opponent): (p.wins, p.losses, p.ties) for p in report.pairs}
    assert pairs[("alpha", "gamma")] == (1, 0, 0)
