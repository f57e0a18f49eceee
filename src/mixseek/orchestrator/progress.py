"""What the store says each team has done so far: the state both engines resume from. Plain data, so the
Temporal workflow carries it between rounds as the local engine does in memory."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mixseek.orchestrator.models import SummaryTeamStatus, TeamSummary

if TYPE_CHECKING:
    from mixseek.round_controller.models import RoundOutcome
    from mixseek.storage.models import (
        FinalStatus,
        LeaderBoardRow,
        RoundDecision,
        RoundStatusRecord,
        StopReason,
    )


@dataclass
class TeamProgress:
    """What the store says a team has done so far in this execution."""

    completed: dict[int, float] = field(default_factory=dict)
    decisions: dict[int, bool] = field(default_factory=dict)
    exit_reason: str | None = None
    failed: str | None = None

    def alive_at(self, round_number: int) -> bool:
        return self.failed is None and all(self.decisions.get(k) for k in range(1, round_number))

    @property
    def ended(self) -> bool:
        """Whether the team is done whatever else happens: it failed, or a decision stopped it."""
        return self.failed is not None or False in self.decisions.values()

    def best_round(self) -> int:
        """The round marked final: the best score, the later round on a tie."""
        return max(self.completed, key=lambda r: (self.completed[r], r))

    def record_decision(self, round_number: int, decision: RoundDecision) -> None:
        self.decisions[round_number] = decision.should_continue
        if not decision.should_continue:
            self.exit_reason = decision.reason


def record_outcomes(
    progress: Mapping[str, TeamProgress], round_number: int, outcomes: Iterable[RoundOutcome]
) -> str | None:
    """A round's team results into `progress`; the budget error when the budget cut a team's round."""
    budget_cut: str | None = None
    for outcome in outcomes:
        team = progress[outcome.team_id]
        if outcome.status == "completed" and outcome.score is not None:
            team.completed[round_number] = outcome.score
        elif outcome.status == "budget":
            budget_cut = outcome.error
        else:
            team.failed = outcome.error or outcome.status
    return budget_cut


def rounds_scored(progress: Mapping[str, TeamProgress]) -> int:
    """The last round with a scored submission (`rounds_run`); a round cut off before any score is not."""
    return max((max(team.completed, default=0) for team in progress.values()), default=0)


def interrupted(progress: Mapping[str, TeamProgress]) -> tuple[StopReason, str]:
    """The stop of an execution interrupted now, with where it was (its summary's detail)."""
    scored = rounds_scored(progress)
    return "interrupted", f"after round {scored}" if scored else "before any round was scored"


def undecided(progress: Mapping[str, TeamProgress], alive: Iterable[str], round_number: int) -> list[str]:
    """The teams of `alive` that still need a decision on whether to go on after `round_number`."""
    return [t for t in alive if progress[t].failed is None and round_number not in progress[t].decisions]


def load_progress(
    team_ids: Iterable[str], board: Iterable[LeaderBoardRow], statuses: Iterable[RoundStatusRecord]
) -> dict[str, TeamProgress]:
    """What the stored rounds and decisions say each team has done: where a run or a resume starts."""
    progress = {team_id: TeamProgress() for team_id in team_ids}
    for row in board:
        if row.team_id in progress:
            progress[row.team_id].completed[row.round_number] = row.evaluation_score
    for status in statuses:
        team = progress.get(status.team_id)
        if team is None:
            continue
        if status.status in ("failed", "timeout"):
            team.failed = status.error_message or status.status
        elif status.status == "completed" and status.should_continue is not None:
            team.decisions[status.round_number] = status.should_continue
            team.exit_reason = status.exit_reason or team.exit_reason
    return progress


def team_summaries(
    progress: Mapping[str, TeamProgress], names: Mapping[str, str], stop: StopReason, cut: set[str]
) -> list[TeamSummary]:
    """Each team's end: `cut` are the teams an interruption stopped before they ended."""
    teams = []
    for team_id, team in progress.items():
        best_round = team.best_round() if team.completed else None
        status: SummaryTeamStatus = "completed"
        if team.failed or team_id in cut:
            status = "failed" if team.failed else "interrupted"
        teams.append(
            TeamSummary(
                team_id=team_id,
                team_name=names[team_id],
                status=status,
                rounds_completed=len(team.completed),
                best_round=best_round,
                best_score=team.completed[best_round] if best_round is not None else None,
                exit_reason=None if status != "completed" else (team.exit_reason or stop),
                error=team.failed,
            )
        )
    return teams


def final_status(teams: Sequence[TeamSummary], stop: StopReason) -> FinalStatus:
    """The execution's status from how it stopped and how many teams failed."""
    failed = sum(1 for t in teams if t.status == "failed")
    if stop == "interrupted":
        return "interrupted"
    if failed == 0:
        return "completed"
    return "failed" if failed == len(teams) else "partial_failure"
