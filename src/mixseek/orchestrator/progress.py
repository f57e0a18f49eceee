"""What the store says each team has done so far: the state both engines resume from.

Plain data without dependencies, so the Temporal workflow (deterministic code in a
sandbox) carries it between rounds as the local engine does in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mixseek.round_controller.models import RoundDecision, RoundOutcome
    from mixseek.storage.models import StopReason


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
    """The last round in which a team's submission was scored (an execution's `rounds_run`): a
    round that an interruption or failures cut off before any score does not count."""
    return max((max(team.completed, default=0) for team in progress.values()), default=0)


def interrupted(progress: Mapping[str, TeamProgress]) -> tuple[StopReason, str]:
    """The stop of an execution interrupted now, with where it was (its summary's detail)."""
    scored = rounds_scored(progress)
    return "interrupted", f"after round {scored}" if scored else "before any round was scored"


def undecided(progress: Mapping[str, TeamProgress], alive: Iterable[str], round_number: int) -> list[str]:
    """The teams of `alive` that still need a decision on whether to go on after `round_number`."""
    return [t for t in alive if progress[t].failed is None and round_number not in progress[t].decisions]
