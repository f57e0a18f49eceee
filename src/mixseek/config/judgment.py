"""Settings of `configs/judgment.toml`: the model that decides whether a team goes on."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from mixseek.config.loader import MixseekSettings
from mixseek.config.model_ref import ModelRef
from mixseek.config.model_settings import ModelSettingsTable, check_model_settings
from mixseek.config.text_fields import OptionalText


class JudgmentSettings(MixseekSettings):
    """Whether another round is worth it, asked once per team per round."""

    env_prefix: ClassVar[str] = "MIXSEEK_JUDGMENT__"

    model: ModelRef = "openai:gpt-4o"
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    system_instruction: OptionalText = None
    judge_on_final_round: bool = False
    model_settings: ModelSettingsTable = None

    @model_validator(mode="after")
    def validate_model_settings(self) -> JudgmentSettings:
        check_model_settings(self, [self.model])
        return self
