"""Bench results: win rates, means, ranks with intervals, sign tests per task, means per tag and task."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from statistics import fmean
from typing import Any

from mixseek.exit_codes import ExitCode
from mixseek.stats.judge_bias import Rate, pooled
from mixseek.stats.resampling import bootstrap_mean_ci, percentile
from mixseek.stats.significance import paired_permutation_test, sign_test
from mixseek.storage.pairwise_views import JudgeBias
from mixseek.tasksets.tasks import TaskSet

LEVEL = 0.95
ALPHA = 0.05  # a paired p below it is significant: `--fail-if-worse` fails
SAMPLES = 2000
EXCERPT_CHARS = 120


@dataclass(frozen=True)
class Answer:
    team_id: str
    score: float
    content: str


@dataclass(frozen=True)
class RunOutcome:
    """One run of the bench: its execution and each team's best score (None: nothing scored)."""

    task_id: str
    repeat_number: int
    execution_id: str
    status: str
    scores: Mapping[str, float | None]
    best: Answer | None = None
    degraded: bool = False  # completed, but a judgment failed (`mixseek exec`'s exit code 1)
    judge: tuple[str, JudgeBias] | None = None  # the pairwise judge's model and its bias
    costs: Mapping[str, float | None] = field(default_factory=dict)  # None: a model's price is unknown
    seconds: Mapping[str, float] = field(default_factory=dict)  # the team's rounds in this run

    @property
    def scored(self) -> bool:
        return any(score is not None for score in self.scores.values())

    @property
    def clean(self) -> bool:
        return self.status == "completed" and not self.degraded


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        low, high = bootstrap_mean_ci(values, samples=SAMPLES, level=LEVEL)
        return cls(fmean(values), low, high)


@dataclass(frozen=True)
class TeamResult:
    team_id: str
    team_name: str
    runs: int
    wins: float
    win_rate: Interval
    score: Interval
    rank: Interval
    cost: float | None = None  # over every ended run; None when a model's price is unknown
    cost_per_task: float | None = None  # the mean cost of one run (one task, once)
    latency_p50: float | None = None  # seconds of the team's rounds in one run
    latency_p95: float | None = None
    on_frontier: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "team_id": self.team_id,
            "team_name": self.team_name,
            "runs": self.runs,
            "wins": self.wins,
            "win_rate": vars(self.win_rate),
            "mean_score": vars(self.score),
            "mean_rank": vars(self.rank),
            "cost": {"total": self.cost, "per_task": self.cost_per_task},
            "latency_seconds": {"p50": self.latency_p50, "p95": self.latency_p95},
            "on_frontier": self.on_frontier,
        }


@dataclass(frozen=True)
class PairResult:
    """`team` against `opponent`: runs won, lost and tied, the same per task, the sign test, and the paired
    permutation test of the per-task mean score differences (team minus opponent)."""

    team: str
    opponent: str
    wins: int
    losses: int
    ties: int
    task_wins: int
    task_losses: int
    task_ties: int
    p_value: float
    mean_difference: float = 0.0
    paired_p: float = 1.0

    def sign_json(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k not in ("mean_difference", "paired_p")}

    def paired_json(self) -> dict[str, Any]:
        tasks = self.task_wins + self.task_losses + self.task_ties
        return {"team": self.team, "opponent": self.opponent, "tasks": tasks} | {
            "mean_difference": self.mean_difference,
            "p_value": self.paired_p,
        }


@dataclass(frozen=True)
class BaselineResult:
    """A team's per-task mean score minus the baseline bench's: mean with interval, and the paired p."""

    team_id: str
    tasks: int
    difference: Interval
    p_value: float

    def as_json(self) -> dict[str, Any]:
        return vars(self) | {"difference": vars(self.difference)}


@dataclass(frozen=True)
class GroupResult:
    name: str
    tags: tuple[str, ...]
    runs: int
    mean_scores: dict[str, float]
    winners: list[str]
    best: Answer | None = None


@dataclass(frozen=True)
class BenchReport:
    bench_id: str
    tasks_file: str
    tasks_sha256: str
    task_count: int
    repeats: int
    teams: list[TeamResult]
    pairs: list[PairResult]
    tags: list[GroupResult]
    tasks: list[GroupResult]
    outcomes: list[RunOutcome]
    missing: int
    names: dict[str, str] = field(default_factory=dict)
    baseline_id: str | None = None
    baseline: list[BaselineResult] = field(default_factory=list)

    @property
    def planned(self) -> int:
        return self.task_count * self.repeats

    @property
    def scored(self) -> int:
        return sum(1 for o in self.outcomes if o.scored)

    def judges(self) -> dict[str, dict[str, Rate]]:
        """Each pairwise judge model's flip and longer-answer win rates, pooled over the runs."""
        found: dict[str, list[JudgeBias]] = {}
        for o in self.outcomes:
            if o.judge is not None:
                found.setdefault(o.judge[0], []).append(o.judge[1])
        return {
            m: {"flips": pooled(b.flips for b in bs), "longer_wins": pooled(b.longer_wins for b in bs)}
            for m, bs in found.items()
        }

    def judge_lines(self) -> list[str]:
        """One line per pairwise judge model, for text, Markdown and HTML."""
        return [
            f"judge {m}: verdict flipped with the order {j['flips'].text()}; "
            f"longer submission won {j['longer_wins'].text()}"
            for m, j in self.judges().items()
        ]

    def unclean(self) -> str:
        """How the runs that did not end cleanly ended, e.g. `2 failed, 1 degraded` ('' if none)."""
        ended = [o.status if o.status != "completed" else "degraded" for o in self.outcomes if not o.clean]
        return ", ".join(f"{ended.count(status)} {status}" for status in dict.fromkeys(ended))

    @property
    def exit_code(self) -> ExitCode:
        """As `mixseek exec`'s: 2 when no run was scored, 1 when some run failed or is missing, else 0."""
        if self.scored == 0:
            return ExitCode.FAILURE
        if self.missing or not all(o.clean for o in self.outcomes):
            return ExitCode.PARTIAL_FAILURE
        return ExitCode.SUCCESS

    def worse(self, team_id: str) -> str | None:
        """The line `--fail-if-worse` ends with: `team_id` scored significantly lower than the baseline."""
        for b in self.baseline:
            if b.team_id == team_id and b.p_value < ALPHA and b.difference.mean < 0:
                d = b.difference
                return (
                    f"worse: team {team_id} scored {-d.mean:.3g} lower than bench {self.baseline_id} "
                    f"({LEVEL:.0%} CI {d.low:.3g} to {d.high:.3g}, p = {b.p_value:.3g})"
                )
        return None

    def as_json(self) -> dict[str, Any]:
        """The report as one JSON document (`mixseek bench -f json`); model text kept exact."""
        return {
            "bench_id": self.bench_id,
            "tasks_file": self.tasks_file,
            "tasks_sha256": self.tasks_sha256,
            "task_count": self.task_count,
            "repeats": self.repeats,
            "runs": {
                "planned": self.planned,
                "scored": self.scored,
                "unscored": len(self.outcomes) - self.scored,
                "missing": self.missing,
            },
            "method": {
                "confidence_level": LEVEL,
                "bootstrap_samples": SAMPLES,
                "unscored_team_score": 0.0,
                "sign_test_unit": "task",
                "paired_test": "permutation of per-task mean score differences (exact up to 24 tasks)",
            },
            "teams": [t.as_json() for t in self.teams],
            "frontier": [t.team_id for t in self.teams if t.on_frontier],
            "pairwise": [p.sign_json() for p in self.pairs],
            "judge_bias": {m: {k: vars(r) for k, r in j.items()} for m, j in self.judges().items()},
            "paired_tests": [p.paired_json() for p in self.pairs],
            "baseline": None
            if self.baseline_id is None
            else {"bench_id": self.baseline_id, "teams": [b.as_json() for b in self.baseline]},
            "tags": [
                {"tag": g.name, "runs": g.runs, "mean_scores": g.mean_scores, "winners": g.winners}
                for g in self.tags
            ],
            "tasks": [
                {
                    "task_id": g.name,
                    "tags": list(g.tags),
                    "runs": g.runs,
                    "mean_scores": g.mean_scores,
                    "winners": g.winners,
                    "best_answer": vars(g.best) if g.best is not None else None,
                }
                for g in self.tasks
            ],
            "executions": [
                {
                    "task_id": o.task_id,
                    "repeat": o.repeat_number,
                    "execution_id": o.execution_id,
                    "status": o.status,
                    "degraded": o.degraded,
                    "scores": dict(o.scores),
                }
                for o in self.outcomes
            ],
        }


def _filled(outcome: RunOutcome, teams: Sequence[str]) -> dict[str, float]:
    """A team without a score counts as the run's worst: 0, or the lowest score when one is below 0."""
    floor = min([0.0, *(v for v in outcome.scores.values() if v is not None)])
    return {team: floor if (v := outcome.scores.get(team)) is None else v for team in teams}


def _ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """1 for the best; teams tied share the mean of the places they take."""
    ordered = sorted(scores.values(), reverse=True)
    first = {value: ordered.index(value) + 1 for value in set(ordered)}
    count = {value: ordered.count(value) for value in set(ordered)}
    return {team: first[v] + (count[v] - 1) / 2 for team, v in scores.items()}


def _win_shares(scores: Mapping[str, float]) -> dict[str, float]:
    winners = _winners(scores)
    return {team: (1 / len(winners) if team in winners else 0.0) for team in scores}


def _winners(means: Mapping[str, float]) -> list[str]:
    if not means:
        return []
    top = max(means.values())
    return [team for team, value in means.items() if value == top]


def _pair(
    team: str, other: str, runs: Sequence[dict[str, float]], by_task: Sequence[dict[str, float]]
) -> PairResult:
    def tally(rows: Sequence[dict[str, float]]) -> tuple[int, int, int]:
        wins = sum(1 for r in rows if r[team] > r[other])
        losses = sum(1 for r in rows if r[team] < r[other])
        return wins, losses, len(rows) - wins - losses

    wins, losses, ties = tally(runs)
    task_wins, task_losses, task_ties = tally(by_task)
    differences = [r[team] - r[other] for r in by_task]
    mean = fmean(differences) if differences else 0.0
    paired = paired_permutation_test(differences)
    sign = sign_test(task_wins, task_losses)
    return PairResult(team, other, wins, losses, ties, task_wins, task_losses, task_ties, sign, mean, paired)


def _group(
    name: str, tags: tuple[str, ...], outcomes: Sequence[RunOutcome], teams: Sequence[str]
) -> GroupResult:
    rows = [_filled(o, teams) for o in outcomes]
    means = {team: fmean(r[team] for r in rows) for team in teams} if rows else {}
    answers = [o.best for o in outcomes if o.best is not None]
    best = max(answers, key=lambda a: a.score) if answers else None
    return GroupResult(name, tags, len(rows), means, _winners(means), best)


def build_report(
    bench_id: str,
    tasks: TaskSet,
    repeats: int,
    teams: Mapping[str, str],
    outcomes: Sequence[RunOutcome],
    missing: int,
) -> BenchReport:
    """The report over the ended runs `outcomes` of teams `teams` (team_id → name, in order)."""
    team_ids = list(teams)
    for outcome in outcomes:  # a team the workspace no longer has still counts where it ran
        team_ids += [t for t in outcome.scores if t not in team_ids]
    names = {t: teams.get(t, t) for t in team_ids}
    scored = [o for o in outcomes if o.scored]
    rows = [_filled(o, team_ids) for o in scored]
    results: list[TeamResult] = []
    if rows:
        shares = [_win_shares(r) for r in rows]
        ranks = [_ranks(r) for r in rows]
        for team in team_ids:
            results.append(
                TeamResult(
                    team,
                    names[team],
                    len(rows),
                    sum(s[team] for s in shares),
                    Interval.of([s[team] for s in shares]),
                    Interval.of([r[team] for r in rows]),
                    Interval.of([r[team] for r in ranks]),
                    *_spend(team, outcomes),
                )
            )
    results = frontier(results)
    results.sort(key=lambda t: (-t.win_rate.mean, -t.score.mean, t.team_id))
    task_groups = [
        _group(task.task_id, task.tags, [o for o in scored if o.task_id == task.task_id], team_ids)
        for task in tasks.tasks
    ]
    by_task = [g.mean_scores for g in task_groups if g.runs]
    order = [t.team_id for t in results]
    pairs = [_pair(a, b, rows, by_task) for a, b in combinations(order, 2)]
    all_tags = list(dict.fromkeys(tag for task in tasks.tasks for tag in task.tags))
    tagged = {task.task_id: task.tags for task in tasks.tasks}
    tag_groups = [
        _group(tag, (), [o for o in scored if tag in tagged.get(o.task_id, ())], team_ids) for tag in all_tags
    ]
    return BenchReport(
        bench_id,
        str(tasks.path),
        tasks.sha256,
        len(tasks.tasks),
        repeats,
        results,
        pairs,
        tag_groups,
        task_groups,
        list(outcomes),
        missing,
        names,
    )


def compare(current: BenchReport, baseline: BenchReport) -> BenchReport:
    """`current` with each team's per-task mean score differences from `baseline` (same tasks)."""
    old = {g.name: g.mean_scores for g in baseline.tasks if g.runs}
    results = []
    for team in current.teams:
        t = team.team_id
        diffs = [
            g.mean_scores[t] - old[g.name][t] for g in current.tasks if g.runs and t in old.get(g.name, {})
        ]
        if diffs:
            results.append(BaselineResult(t, len(diffs), Interval.of(diffs), paired_permutation_test(diffs)))
    return replace(current, baseline_id=baseline.bench_id, baseline=results)


def _spend(
    team: str, outcomes: Sequence[RunOutcome]
) -> tuple[float | None, float | None, float | None, float | None]:
    """The team's total cost and mean cost per run (None if any is unknown), and p50/p95 of its run times."""
    costs = [o.costs.get(team) for o in outcomes if team in o.costs]
    known = [c for c in costs if c is not None]
    total = sum(known) if costs and len(known) == len(costs) else None
    times = sorted(o.seconds[team] for o in outcomes if team in o.seconds)
    p50, p95 = (percentile(times, 0.5), percentile(times, 0.95)) if times else (None, None)
    return total, (total / len(costs) if total is not None else None), p50, p95


def frontier(teams: Sequence[TeamResult]) -> list[TeamResult]:
    """`teams`, marking those no other team beats on both mean score and cost per task (costs known)."""
    points = [(t.score.mean, t.cost_per_task) for t in teams if t.cost_per_task is not None]

    def beaten(score: float, cost: float) -> bool:
        return any(s >= score and c <= cost and (s, c) != (score, cost) for s, c in points)

    return [
        replace(t, on_frontier=t.cost_per_task is not None and not beaten(t.score.mean, t.cost_per_task))
        for t in teams
    ]
