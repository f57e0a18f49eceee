"""The model settings a leader or member config asks for."""

from __future__ import annotations

from pydantic_ai.models import Model
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings, merge_model_settings

from mixseek.config.team_models import LeaderAgentConfig, MemberAgentConfig
from mixseek.llm.settings import build_model_settings


def agent_model_settings(config: LeaderAgentConfig | MemberAgentConfig) -> ModelSettings:
    """The explicit settings that are set, then the config's `model_settings` table."""
    return build_model_settings(
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        top_p=config.top_p,
        seed=config.seed,
        stop_sequences=config.stop_sequences,
        timeout_seconds=config.timeout_seconds,
        table=config.model_settings,
    )


class SettingsModel(WrapperModel):
    """A model whose own settings are a role's: an agent a plugin builds on it runs with them."""

    def __init__(self, wrapped: Model, role_settings: ModelSettings) -> None:
        super().__init__(wrapped)
        self.role_settings = role_settings

    @property
    def settings(self) -> ModelSettings | None:
        return merge_model_settings(self.wrapped.settings, self.role_settings)
