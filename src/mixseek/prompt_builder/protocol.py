"""What callers need from a prompt builder, so any object with these methods serves (or a test double)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mixseek.prompt_builder.models import RoundPromptContext


@runtime_checkable
class PromptBuilder(Protocol):
    async def build_team_prompt(self, context: RoundPromptContext) -> str:
        """The prompt a team's leader receives for `context.round_number`."""
        ...

    def build_evaluator_prompt(self, user_prompt: str, submission: str) -> str:
        """The prompt the evaluator scores `submission` with."""
        ...

    async def build_judgment_prompt(self, context: RoundPromptContext) -> str:
        """The prompt asking whether another round is worth it after `context.round_number`."""
        ...
