"""An execution page's facts as plain rows, from the read model alone, so every page lays out the same."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mixseek.storage.views import ExecutionView, RoundView, TeamView
from mixseek.text_safety import strip_controls_in


def without_controls(view: ExecutionView) -> ExecutionView:
    """The view with the control characters of model text removed from every string."""
    return ExecutionView.model_validate(strip_controls_in(view.model_dump()))


def round_tokens(round_view: RoundView) -> int | None:
    """Input and output tokens of a round's team run and evaluation; None when it stored no usage."""
    usage = round_view.usage or {}
    parts = [usage[part] for part in ("team", "evaluation") if isinstance(usage.get(part), dict)]
    if not parts:
        return None
    return sum(_int(part.get(kind)) for part in parts for kind in ("input_tokens", "output_tokens"))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def round_seconds(round_view: RoundView) -> float | None:
    """How long a round took, once it ended."""
    if round_view.started_at is None or round_view.ended_at is None:
        return None
    return max((round_view.ended_at - round_view.started_at).total_seconds(), 0.0)


@dataclass(frozen=True)
class GridRow:
    """One team's line of the grid: its round in each column, None where it ran no such round."""

    team: TeamView
    cells: list[RoundView | None]


@dataclass(frozen=True)
class Grid:
    round_numbers: list[int]
    rows: list[GridRow]


def round_grid(view: ExecutionView) -> Grid:
    """Teams × rounds, teams in the view's order, a column for every round any team reached."""
    last = max((r.round_number for t in view.teams for r in t.rounds), default=0)
    numbers = list(range(1, max(last, view.rounds_run) + 1))
    rows = []
    for team in view.teams:
        by_number = {r.round_number: r for r in team.rounds}
        rows.append(GridRow(team, [by_number.get(n) for n in numbers]))
    return Grid(numbers, rows)


@dataclass(frozen=True)
class JudgmentRow:
    """The decision after one team's round: by the judge (with reasoning) or by a round rule."""

    team: TeamView
    round_number: int
    decision: str
    exit_reason: str | None
    confidence: float | None
    reasoning: str | None


def _decision(should_continue: bool | None) -> str:
    if should_continue is None:
        return "undecided"
    return "continue" if should_continue else "stop"


def judgment_rows(view: ExecutionView) -> list[JudgmentRow]:
    """Every decided round's judgment, team by team, round by round."""
    return [
        JudgmentRow(
            team,
            r.round_number,
            _decision(r.judgment.should_continue),
            r.judgment.exit_reason,
            r.judgment.confidence,
            r.judgment.reasoning,
        )
        for team in view.teams
        for r in team.rounds
        if r.judgment.should_continue is not None or r.judgment.reasoning
    ]


@dataclass(frozen=True)
class Failure:
    """Something that went wrong, where (team, round, member) and its message."""

    team: TeamView
    round_number: int | None
    member: str | None
    kind: str
    message: str


def failures(view: ExecutionView) -> list[Failure]:
    """Failed teams, rounds and member answers, with messages; a team failed by its round is listed once."""
    found: list[Failure] = []
    for team in view.teams:
        if team.error and all(r.error != team.error for r in team.rounds):
            found.append(Failure(team, None, None, team.status, team.error))
        for r in team.rounds:
            if r.status in ("failed", "timeout"):
                found.append(Failure(team, r.round_number, None, r.status, r.error or ""))
            for answer in r.member_submissions:
                if answer.status and not answer.succeeded:
                    member = answer.agent_name + (f" (step {answer.step_id})" if answer.step_id else "")
                    found.append(
                        Failure(team, r.round_number, member, "member failed", answer.error_message or "")
                    )
    return found


@dataclass(frozen=True)
class BestRound:
    """A team's best scored round, with the submission it wrote."""

    team: TeamView
    round: RoundView


def best_rounds(view: ExecutionView) -> list[BestRound]:
    """Each team's best round that has a submission, in the view's (leaderboard) order."""
    found = []
    for team in view.teams:
        best = next((r for r in team.rounds if r.round_number == team.best_round), None)
        if best is not None and best.submission is not None:
            found.append(BestRound(team, best))
    return found
