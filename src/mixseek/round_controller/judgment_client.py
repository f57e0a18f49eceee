"""Asking a model whether a team's next round is worth it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

from mixseek.config.judgment import JudgmentSettings
from mixseek.config.prompt_defaults import DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION
from mixseek.llm.structured import Judged, JudgeError, StructuredJudge
from mixseek.prompt_builder.models import RoundPromptContext

JudgmentPromptRenderer = Callable[[RoundPromptContext], Awaitable[str]]


class JudgmentOutput(BaseModel):
    """The structured answer the judgment model must give."""

    should_continue: bool = Field(description="次のラウンドを実行すべきならtrue")
    reasoning: str = Field(description="判定の理由")
    confidence_score: float = Field(ge=0.0, le=1.0, description="判定の確信度（0〜1）")


class JudgmentError(JudgeError):
    """The judgment's model call failed after its retries."""


class JudgmentClient(StructuredJudge[JudgmentOutput]):
    """One structured-output call per team per round."""

    def __init__(self, settings: JudgmentSettings, render_prompt: JudgmentPromptRenderer) -> None:
        super().__init__(
            settings, JudgmentOutput, "judgment", DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION, JudgmentError
        )
        self.settings = settings
        self.render_prompt = render_prompt

    async def judge(self, context: RoundPromptContext) -> Judged[JudgmentOutput]:
        return await self.ask(await self.render_prompt(context))
