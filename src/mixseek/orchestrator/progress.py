"""What the store says each team has done so far: the state both engines resume from.

Plain data without dependencies, so the Temporal workflow (deterministic code in a
sandbox) carries it between rounds as the local engine does in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TeamProgress:
    """What the store says a team has done so far in this execution."""

    completed: dict[int, float] = field(default_factory=dict)
    decisions: dict[int, bool] = field(default_factory=dict)
    exit_reason: str | None = None
    failed: str | None = None

    def alive_at(self, round_number: int) -> bool:
        return self.failed is None and all(self.decisions.get(k) for k in range(1, round_number))

    def best_round(self) -> int:
        """The round marked final: the best score, the later round on a tie."""
        return max(self.completed, key=lambda r: (self.completed[r], r))
