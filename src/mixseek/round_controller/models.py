"""What a team round returns and the board at a round barrier (`RoundState` and `RoundDecision`
are re-exported: the seeds name this path)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from mixseek.round_state import RoundState
from mixseek.storage.models import RoundDecision

__all__ = ["RoundDecision", "RoundOutcome", "RoundOutcomeStatus", "RoundSnapshot", "RoundState"]


RoundOutcomeStatus = Literal["completed", "failed", "timeout", "budget"]


class RoundOutcome(BaseModel):
    """What `run_team_round` returns: serialisable, so another machine could have produced it."""

    execution_id: str
    team_id: str
    team_name: str
    round_number: int
    status: RoundOutcomeStatus
    score: float | None = None
    score_details: dict[str, Any] = Field(default_factory=dict)
    feedback: str | None = None
    submission: str | None = None
    error: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    started_at: datetime
    ended_at: datetime

    @property
    def elapsed_seconds(self) -> float:
        return (self.ended_at - self.started_at).total_seconds()

    @property
    def tokens(self) -> int:
        """Input and output tokens of the team's run and of its evaluation."""
        return sum(
            int(self.usage.get(part, {}).get(kind, 0))
            for part in ("team", "evaluation")
            for kind in ("input_tokens", "output_tokens")
        )


class RoundSnapshot(BaseModel):
    """What every team may know at a round barrier: each team's history and the ranking up to a
    round; read once per round, and plain data that a team round scheduled elsewhere carries."""

    up_to_round: int = Field(ge=0)
    histories: dict[str, list[RoundState]] = Field(default_factory=dict)
    ranking: list[dict[str, Any]] = Field(default_factory=list)
