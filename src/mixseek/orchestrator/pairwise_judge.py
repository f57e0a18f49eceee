"""The judge of the final pairwise stage: which of two submissions answers the task better. Each pair is asked
in both orders and only a preference that survives the swap counts (MT-Bench's position-swap rule).
Submissions are untrusted text: they go into the prompt as data, in fences they cannot close, and the
instruction tells the judge not to follow what they say."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from mixseek.config.pairwise import PairwiseSettings
from mixseek.config.prompt_defaults import DEFAULT_PAIRWISE_SYSTEM_INSTRUCTION, PAIRWISE_USER_PROMPT
from mixseek.llm.governor import Governor
from mixseek.llm.middleware import wrap_models
from mixseek.llm.retrying import RetryTiming, retry_timing
from mixseek.llm.structured import Judged, JudgeError, StructuredJudge

SITE = "pairwise judge"
"""The call site the stage's model requests are counted under (`runs show`'s usage by site)."""


class PairwiseVerdict(BaseModel):
    """The structured answer the pairwise judge must give."""

    winner: Literal["A", "B", "tie"] = Field(
        description='より優れた提出内容（"A" または "B"）。優劣がなければ "tie"'
    )
    reasoning: str = Field(description="判定の理由")


class PairwiseJudgeError(JudgeError):
    """The pairwise judge's model call failed after its retries."""


def fenced(content: str) -> str:
    """`content` in a backtick fence longer than any backtick run inside it, so it cannot end it."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{content}\n{fence}"


def comparison_prompt(user_prompt: str, first: str, second: str) -> str:
    """The user prompt of one judgment: the task, then `first` as A and `second` as B."""
    return PAIRWISE_USER_PROMPT.format(task=fenced(user_prompt), first=fenced(first), second=fenced(second))


def swap_outcome(verdict_a_first: str, verdict_b_first: str) -> float:
    """Team a's result from both orders: 1 when both prefer a, 0 when both prefer b, else 0.5
    (a tie in either order, or a verdict that flips with the order)."""
    a_first = {"A": 1.0, "B": 0.0}.get(verdict_a_first, 0.5)
    b_first = {"A": 0.0, "B": 1.0}.get(verdict_b_first, 0.5)
    return a_first if a_first == b_first else 0.5


class PairwiseJudge(StructuredJudge[PairwiseVerdict]):
    """One structured-output call per order of a pair."""

    def __init__(self, settings: PairwiseSettings) -> None:
        super().__init__(
            settings, PairwiseVerdict, SITE, DEFAULT_PAIRWISE_SYSTEM_INSTRUCTION, PairwiseJudgeError
        )

    async def judge(self, user_prompt: str, first: str, second: str) -> Judged[PairwiseVerdict]:
        return await self.ask(comparison_prompt(user_prompt, first, second))


def build_pairwise_judge(
    settings: PairwiseSettings, governor: Governor, timing: RetryTiming
) -> PairwiseJudge:
    """The judge's model governed like every other model of the execution (budget, rate limits)."""
    with wrap_models(governor.wrap), retry_timing(timing):
        return PairwiseJudge(settings)
