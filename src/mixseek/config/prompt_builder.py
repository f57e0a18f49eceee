"""`[prompt_builder]` settings: the three templates and the optional history limits. Environment
(`MIXSEEK_TEAM_USER_PROMPT`, ...) > `configs/prompt_builder.toml` (optional) > defaults."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import ValidationInfo, field_validator

from mixseek.config.loader import Loaded, MixseekSettings, load_section
from mixseek.config.prompt_defaults import (
    DEFAULT_EVALUATOR_USER_PROMPT,
    DEFAULT_JUDGMENT_USER_PROMPT,
    DEFAULT_TEAM_USER_PROMPT,
)
from mixseek.config.workspace import Workspace

SECTION = "prompt_builder"
PromptLanguage = Literal["ja", "en"]
"""The language of the texts the builder writes around history and ranking (`language` key)."""
ENV_PREFIX = "MIXSEEK_"


class PromptBuilderSettings(MixseekSettings):
    """Templates (Jinja2 source) and history limits; limits are off by default (all history, all teams)."""

    env_prefix: ClassVar[str] = ENV_PREFIX

    team_user_prompt: str = DEFAULT_TEAM_USER_PROMPT
    evaluator_user_prompt: str = DEFAULT_EVALUATOR_USER_PROMPT
    judgment_user_prompt: str = DEFAULT_JUDGMENT_USER_PROMPT
    max_submission_history_items: int | None = None
    submission_preview_chars: int | None = None
    max_leaderboard_display_teams: int | None = None
    language: PromptLanguage = "ja"

    @field_validator("team_user_prompt", "evaluator_user_prompt", "judgment_user_prompt")
    @classmethod
    def _template_not_empty(cls, value: str, info: ValidationInfo) -> str:
        if not value.strip():
            raise ValueError(f"{info.field_name} cannot be empty")
        return value

    @field_validator(
        "max_submission_history_items", "submission_preview_chars", "max_leaderboard_display_teams"
    )
    @classmethod
    def _limit_positive(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"{info.field_name} must be >= 1 (or left out for no limit)")
        return value


def load_prompt_builder_settings(workspace: Path | Workspace) -> Loaded[PromptBuilderSettings]:
    """Read `[prompt_builder]` of `configs/prompt_builder.toml` (optional). Only values are checked here
    (`compile_prompt_templates` checks the text); problems are a `ConfigError` naming file and key."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    return load_section(PromptBuilderSettings, ws.prompt_builder_file, SECTION, required=False)
