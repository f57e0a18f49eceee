"""Settings of `configs/pairwise.toml`: the optional final stage ranking the teams' best submissions by
pairwise comparison (each pair in both orders); its own file for its own judge model."""

from __future__ import annotations

import math
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from mixseek.config.loader import MixseekSettings
from mixseek.config.model_ref import ModelRef
from mixseek.config.model_settings import ModelSettingsTable, check_model_settings
from mixseek.config.text_fields import OptionalText

PairwiseSchedule = Literal["round_robin", "top_k", "swiss"]
"""Which pairs are compared: all of them, all among the K best by score, or Swiss rounds."""


class PairwiseSettings(MixseekSettings):
    """Which pairs of best submissions a judge model compares, and how its verdicts become strengths."""

    env_prefix: ClassVar[str] = "MIXSEEK_PAIRWISE__"

    enabled: bool = False
    model: ModelRef = "openai:gpt-4o"
    system_instruction: OptionalText = None
    schedule: PairwiseSchedule = "round_robin"
    top_k: int = Field(default=4, ge=2)
    """With `schedule = "top_k"`: how many of the best teams by score meet each other."""
    max_comparisons: int | None = Field(default=None, ge=1)
    """At most this many comparisons (each is two model calls, one per order). None: the
    schedule's own size (for Swiss, ceil(log2 T) rounds)."""
    bootstrap_samples: int = Field(default=1000, ge=0, le=100_000)
    ranking: Literal["plain", "length_controlled"] = "plain"
    """The stored final ranking: Bradley–Terry, or with the submissions' length and Markdown differences as
    covariates (style control), their effect removed. Both are shown either way."""
    seed: int = 0
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    model_settings: ModelSettingsTable = None

    @model_validator(mode="after")
    def validate_model_settings(self) -> PairwiseSettings:
        # `seed` is the bootstrap's: the model's is `model_settings.seed`
        check_model_settings(self, [self.model], explicit=("temperature", "max_tokens"))
        return self

    def comparisons_for(self, teams: int) -> int:
        """How many comparisons the schedule makes for `teams` teams (twice as many model calls)."""
        if teams < 2:
            return 0
        if self.schedule == "round_robin":
            full = teams * (teams - 1) // 2
        elif self.schedule == "top_k":
            k = min(self.top_k, teams)
            full = k * (k - 1) // 2
        else:
            full = teams * (teams - 1) // 2
            if self.max_comparisons is None:
                return min(full, swiss_rounds(teams) * (teams // 2))
        return full if self.max_comparisons is None else min(full, self.max_comparisons)


def swiss_rounds(teams: int) -> int:
    """The Swiss rounds run without `max_comparisons`: enough for a clear first place."""
    return max(1, math.ceil(math.log2(teams))) if teams >= 2 else 0
