"""mixseek.prompt_builder: the prompts teams, evaluator and judgment receive; it loads no provider SDK."""

from mixseek.config.prompt_builder import PromptBuilderSettings, load_prompt_builder_settings
from mixseek.config.prompt_defaults import (
    DEFAULT_EVALUATOR_USER_PROMPT,
    DEFAULT_JUDGMENT_USER_PROMPT,
    DEFAULT_TEAM_USER_PROMPT,
    EVALUATOR_TEMPLATE_VARIABLES,
    ROUND_TEMPLATE_VARIABLES,
    TEMPLATE_VARIABLES,
)
from mixseek.config.prompt_templates import (
    PromptTemplate,
    PromptTemplateError,
    PromptTemplates,
    compile_prompt_template,
    compile_prompt_templates,
)
from mixseek.prompt_builder.builder import UserPromptBuilder
from mixseek.prompt_builder.constants import NO_RANKING_TEXT, NO_SUBMISSION_HISTORY_TEXT
from mixseek.prompt_builder.formatters import (
    find_team_position,
    format_ranking_table,
    format_submission_history,
    generate_position_message,
    get_current_datetime_with_timezone,
)
from mixseek.prompt_builder.models import LeaderBoardSource, RoundPromptContext
from mixseek.prompt_builder.protocol import PromptBuilder

__all__ = [
    "DEFAULT_EVALUATOR_USER_PROMPT",
    "DEFAULT_JUDGMENT_USER_PROMPT",
    "DEFAULT_TEAM_USER_PROMPT",
    "EVALUATOR_TEMPLATE_VARIABLES",
    "NO_RANKING_TEXT",
    "NO_SUBMISSION_HISTORY_TEXT",
    "ROUND_TEMPLATE_VARIABLES",
    "TEMPLATE_VARIABLES",
    "LeaderBoardSource",
    "PromptBuilder",
    "PromptBuilderSettings",
    "PromptTemplate",
    "PromptTemplateError",
    "PromptTemplates",
    "RoundPromptContext",
    "UserPromptBuilder",
    "compile_prompt_template",
    "compile_prompt_templates",
    "find_team_position",
    "format_ranking_table",
    "format_submission_history",
    "generate_position_message",
    "get_current_datetime_with_timezone",
    "load_prompt_builder_settings",
]
