"""The final pairwise stage as readers see it: comparisons, the Bradley–Terry ranking, how it went."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["A", "B", "tie"]  # the submission shown as A, the one shown as B, or neither
# "failed": a judge error left comparisons out; "skipped": fewer than two teams
PairwiseStatus = Literal["completed", "budget", "failed", "skipped", "interrupted", "running"]


class _PairwiseView(BaseModel):
    # built on first use, as `storage.views`: `runs list` reads none of them
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class PairwiseComparison(_PairwiseView):
    """Two teams' best submissions judged in both orders; `outcome` is team_a's: 1 or 0 when both
    orders agree, else 0.5 (a tie, or a verdict that flips with the order: position bias)."""

    sequence: int
    team_a: str
    team_b: str
    round_a: int
    round_b: int
    verdict_a_first: Verdict
    verdict_b_first: Verdict
    outcome: float
    reasoning_a_first: str | None = None
    reasoning_b_first: str | None = None

    @property
    def winner(self) -> str | None:
        """The team both orders preferred; None for a tie."""
        return self.team_a if self.outcome == 1.0 else self.team_b if self.outcome == 0.0 else None


class PairwiseStanding(_PairwiseView):
    """One team in the pairwise ranking: centred log-strength, bootstrap interval, wins (a tie half)."""

    rank: int
    team_id: str
    team_name: str
    strength: float
    ci_low: float
    ci_high: float
    wins: float
    matches: int
    score_rank: int | None = None


class PairwiseView(_PairwiseView):
    """The pairwise stage of one execution."""

    status: PairwiseStatus
    detail: str | None = None
    model: str = ""
    schedule: str = ""
    planned: int = 0  # comparisons the schedule chose (two model calls each)
    failed: int = 0  # comparisons left out as the judge failed after its retries
    ranking: list[PairwiseStanding] = Field(default_factory=list)
    comparisons: list[PairwiseComparison] = Field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.comparisons)
