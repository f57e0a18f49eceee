"""RoundState: what one finished round of one team produced and how it was scored.

A ground-level record because three layers exchange it: the store reads it
back, the prompt builder formats it, the round controller hands it on. The seeds import it from
`mixseek.round_controller.models`, which re-exports it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class RoundState(BaseModel):
    """What one finished round of one team produced and how it was scored."""

    round_number: int = Field(ge=1)
    submission_content: str
    evaluation_score: float = Field(allow_inf_nan=False)
    score_details: dict[str, Any] = Field(default_factory=dict)
    evaluation_feedback: str | None = None
    round_started_at: datetime
    round_ended_at: datetime
