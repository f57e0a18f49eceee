"""The final pairwise stage as readers see it: each comparison, the Bradley–Terry ranking, and
how the stage went (schedule, judge, planned and done comparisons, why it stopped).

One shape for the summary `mixseek exec` prints and for the read model `mixseek runs show`
and the exports read, like the rest of `storage.views`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["A", "B", "tie"]
"""What the judge answered: the submission shown as A, the one shown as B, or neither."""

PairwiseStatus = Literal["completed", "budget", "failed", "skipped", "interrupted", "running"]
"""How the stage ended: every planned comparison made; stopped by the execution's budget; a judge
error left comparisons out; nothing to compare (fewer than two teams); interrupted; still going."""


class _PairwiseView(BaseModel):
    # built on first use, as `storage.views`: `runs list` reads none of them
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class PairwiseComparison(_PairwiseView):
    """Two teams' best submissions judged twice: team_a shown first (as A), then team_b first.

    `outcome` is team_a's result: 1 when both orders prefer team_a, 0 when both prefer team_b,
    0.5 otherwise (a tie, or a verdict that flips with the order: position bias, not preference)."""

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
    """One team in the pairwise ranking: log-strength (centred on the teams' mean) with its
    bootstrap interval, wins (a tie counts half) out of matches, and its place by score."""

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
    planned: int = 0
    """Comparisons the schedule chose (each is two model calls)."""
    failed: int = 0
    """Comparisons left out because the judge failed after its retries."""
    ranking: list[PairwiseStanding] = Field(default_factory=list)
    comparisons: list[PairwiseComparison] = Field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.comparisons)
