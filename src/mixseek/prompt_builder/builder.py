"""UserPromptBuilder: renders the team, evaluator and judgment prompts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mixseek.config.loader import Loaded
from mixseek.config.prompt_builder import PromptBuilderSettings, load_prompt_builder_settings
from mixseek.config.prompt_templates import PromptTemplate, PromptTemplates, compile_prompt_templates
from mixseek.prompt_builder.formatters import (
    find_team_position,
    format_ranking_table,
    format_submission_history,
    generate_position_message,
    get_current_datetime_with_timezone,
)
from mixseek.prompt_builder.models import LeaderBoardSource, RoundPromptContext
from mixseek.prompt_builder.protocol import PromptBuilder
from mixseek.prompt_builder.texts import prompt_texts


class UserPromptBuilder:
    """Builds prompts from the workspace's `[prompt_builder]` templates, compiled once. Every variable is
    defined: `submission_history`, `ranking_table` ("" unranked, as in round 1's team prompt) and
    `team_position_message`; a context's ranking wins over any store, its store over the builder's."""

    def __init__(
        self,
        workspace: Path,
        store: LeaderBoardSource | None = None,
        *,
        settings: Loaded[PromptBuilderSettings] | None = None,
    ) -> None:
        """Load settings (unless given) and compile the templates (else ConfigError, PromptTemplateError)."""
        workspace = Path(workspace)
        if not workspace.is_dir():
            raise FileNotFoundError(f"workspace directory does not exist: {workspace}")
        self.store = store
        self.loaded: Loaded[PromptBuilderSettings] = (
            settings if settings is not None else load_prompt_builder_settings(workspace)
        )
        self.templates: PromptTemplates = compile_prompt_templates(self.loaded)
        self.percent = True
        """Whether scores are on 0–100 (the seed's `/100` after each); the run's evaluator decides."""

    @property
    def settings(self) -> PromptBuilderSettings:
        return self.loaded.value

    @property
    def own_texts(self) -> tuple[str, ...]:
        """The fixed words of the templates: mixseek's, which a model must not give as its answer."""
        return self.templates.literal_texts

    async def build_team_prompt(self, context: RoundPromptContext) -> str:
        """The prompt for the team's leader in round `context.round_number`."""
        return await self._render_round(self.templates.team, context, before_round=True)

    async def build_judgment_prompt(self, context: RoundPromptContext) -> str:
        """The prompt asking whether another round is worth it (round just finished)."""
        return await self._render_round(self.templates.judgment, context, before_round=False)

    def build_evaluator_prompt(self, user_prompt: str, submission: str) -> str:
        """The prompt the evaluator scores `submission` with; `ValueError` for an empty `user_prompt`."""
        if not user_prompt.strip():
            raise ValueError("user_prompt cannot be empty")
        values = {
            "user_prompt": user_prompt,
            "submission": submission,
            "current_datetime": get_current_datetime_with_timezone(),
        }
        return self.templates.evaluator.render(values)

    async def _render_round(
        self, template: PromptTemplate, context: RoundPromptContext, *, before_round: bool
    ) -> str:
        values = await self._round_values(context, before_round=before_round)
        return template.render(values)

    async def _round_values(self, context: RoundPromptContext, *, before_round: bool) -> dict[str, Any]:
        settings = self.settings
        history = format_submission_history(
            context.round_history,
            max_items=settings.max_submission_history_items,
            preview_chars=settings.submission_preview_chars,
            language=settings.language,
            percent=self.percent,
        )
        ranking_table, position_message = await self._ranking(context, before_round=before_round)
        return {
            "user_prompt": context.user_prompt,
            "round_number": context.round_number,
            "submission_history": history,
            "ranking_table": ranking_table,
            "team_position_message": position_message,
            "current_datetime": get_current_datetime_with_timezone(),
        }

    async def _ranking(self, context: RoundPromptContext, *, before_round: bool) -> tuple[str, str]:
        store = context.store if context.store is not None else self.store
        if context.ranking is None and store is None:
            return "", ""
        if before_round and context.round_number == 1:
            return prompt_texts(self.settings.language).no_ranking, ""
        ranking: Sequence[Mapping[str, Any]]
        if context.ranking is not None:
            ranking = context.ranking
        else:
            assert store is not None  # neither is None: checked above
            ranking = await store.get_leader_board_ranking(context.execution_id)
        table = format_ranking_table(
            ranking,
            context.team_id,
            context.team_name,
            max_teams=self.settings.max_leaderboard_display_teams,
            language=self.settings.language,
            percent=self.percent,
        )
        position = find_team_position(ranking, context.team_id)
        message = (
            generate_position_message(position, len(ranking), language=self.settings.language)
            if position is not None
            else ""
        )
        return table, message


def template_words(builder: PromptBuilder) -> tuple[str, ...]:
    """The fixed words of `builder`'s templates (none for a builder of another kind)."""
    return builder.own_texts if isinstance(builder, UserPromptBuilder) else ()
