"""Asking a model whether a team's next round is worth it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field
from pydantic_ai import Agent, RunUsage, UsageLimitExceeded

from mixseek.config.judgment import JudgmentSettings
from mixseek.errors import RuntimeFailure, describe_exception
from mixseek.llm import create_model
from mixseek.llm.structured import structured_agent
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


@dataclass
class JudgmentResult:
    output: JudgmentOutput
    usage: RunUsage = field(default_factory=RunUsage)


class JudgmentError(RuntimeFailure):
    """The judgment's model call failed after its retries."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"judgment failed: {describe_exception(cause)}")


class JudgmentClient:
    """One structured-output call per team per round."""

    def __init__(self, settings: JudgmentSettings, render_prompt: JudgmentPromptRenderer) -> None:
        self.settings = settings
        self.render_prompt = render_prompt
        model = create_model(settings.model, role="judgment")
        self.agent: Agent[None, JudgmentOutput] = structured_agent(
            model,
            JudgmentOutput,
            instructions=settings.system_instruction or DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION,
            name="judgment",
            max_retries=settings.max_retries,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            timeout_seconds=settings.timeout_seconds,
        )

    async def judge(self, context: RoundPromptContext) -> JudgmentResult:
        prompt = await self.render_prompt(context)
        try:
            result = await self.agent.run(prompt)
        except UsageLimitExceeded:
            raise  # the execution's budget, not this judgment, stopped it
        except Exception as exc:
            raise JudgmentError(exc) from exc
        return JudgmentResult(output=result.output, usage=result.usage)
