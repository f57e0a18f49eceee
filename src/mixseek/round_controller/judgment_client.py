"""Asking a model whether a team's next round is worth it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

from mixseek.config.judgment import JudgmentSettings
from mixseek.llm.structured import Judged, JudgeError, StructuredJudge
from mixseek.prompt_builder.models import RoundPromptContext

DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION = (
    "あなたは複数ラウンドで改善を重ねるチームの進行を判定する審査員です。"
    "これまでの提出履歴・スコア・順位を踏まえ、次のラウンドで意味のある改善が見込めるかを判断してください。"
    "改善の余地が大きい場合は継続（should_continue=true）、十分な品質に達したか改善が頭打ちの場合は終了"
    "（should_continue=false）とし、理由と確信度（0〜1）を答えてください。"
)

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
