"""Packaged default templates, the variables each template may use, and fixed texts; the templates and $TZ are
checked when the configuration loads, so their constants live in `mixseek.config` and are re-exported here."""

from __future__ import annotations

from typing import Final

from mixseek.config.prompt_defaults import (
    DEFAULT_EVALUATOR_USER_PROMPT,
    DEFAULT_JUDGMENT_USER_PROMPT,
    DEFAULT_TEAM_USER_PROMPT,
    EVALUATOR_TEMPLATE,
    EVALUATOR_TEMPLATE_VARIABLES,
    JUDGMENT_TEMPLATE,
    ROUND_TEMPLATE_VARIABLES,
    TEAM_TEMPLATE,
    TEMPLATE_VARIABLES,
)
from mixseek.config.timezone import INVALID_TZ_MESSAGE, TZ_ENV_VAR

__all__ = [
    "DEFAULT_EVALUATOR_USER_PROMPT",
    "DEFAULT_JUDGMENT_USER_PROMPT",
    "DEFAULT_TEAM_USER_PROMPT",
    "EVALUATOR_TEMPLATE",
    "EVALUATOR_TEMPLATE_VARIABLES",
    "INVALID_TZ_MESSAGE",
    "JUDGMENT_TEMPLATE",
    "NO_RANKING_TEXT",
    "NO_SUBMISSION_HISTORY_TEXT",
    "ROUND_TEMPLATE_VARIABLES",
    "TEAM_TEMPLATE",
    "TEMPLATE_VARIABLES",
    "TZ_ENV_VAR",
]

# texts of the empty cases
NO_SUBMISSION_HISTORY_TEXT: Final = "まだ過去のSubmissionはありません。"
NO_RANKING_TEXT: Final = "現在はランキング情報がありません。"
