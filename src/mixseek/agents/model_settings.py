"""The model settings a leader or member config asks for."""

from __future__ import annotations

from pydantic_ai.settings import ModelSettings

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
