"""The structured-judge helper under the judgment and the pairwise judge: the answer and its usage,
a failure named by the judge's site, a budget stop passed through as it is."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import BaseModel
from pydantic_ai import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.config.judgment import JudgmentSettings
from mixseek.llm.overrides import override_models
from mixseek.llm.structured import Judged, JudgeError, StructuredJudge


class Verdict(BaseModel):
    ok: bool


class GradingError(JudgeError):
    pass


async def ask(fn: Callable[[list[ModelMessage], AgentInfo], ModelResponse]) -> Judged[Verdict]:
    settings = JudgmentSettings(model="script:judge", max_retries=0, system_instruction="Grade it.")
    with override_models({"script:judge": FunctionModel(fn)}):
        judge = StructuredJudge(settings, Verdict, "grading judge", "the default", GradingError)
        return await judge.ask("answer?")


async def test_the_answer_comes_with_its_usage_under_the_configured_instruction() -> None:
    seen: list[str | None] = []

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"ok": True})])

    judged = await ask(fn)
    assert (judged.output, judged.usage.requests, seen) == (Verdict(ok=True), 1, ["Grade it."])


async def test_a_failed_call_is_the_judge_s_error_named_by_its_site() -> None:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError("model down")

    with pytest.raises(GradingError, match=r"^grading judge failed: .*model down"):
        await ask(fn)


async def test_a_budget_stop_passes_through() -> None:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise UsageLimitExceeded("token budget of the execution reached")

    with pytest.raises(UsageLimitExceeded, match="token budget"):
        await ask(fn)
