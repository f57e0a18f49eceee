"""Judgment: structured output parses, prompt comes from the judgment template, settings reach the model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.config.judgment import JudgmentSettings
from mixseek.config.prompt_defaults import DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION
from mixseek.llm import override_models
from mixseek.prompt_builder.models import RoundPromptContext
from mixseek.round_controller.judgment_client import JudgmentClient, JudgmentError
from mixseek.round_controller.models import RoundState
from scripting import first_user_text


def context() -> RoundPromptContext:
    now = datetime.now(UTC)
    return RoundPromptContext(
        user_prompt="課題",
        round_number=1,
        round_history=[
            RoundState(
                round_number=1,
                submission_content="回答",
                evaluation_score=55.0,
                round_started_at=now,
                round_ended_at=now,
            )
        ],
        team_id="alpha",
        team_name="Alpha",
        execution_id="exec-1",
    )


async def render(ctx: RoundPromptContext) -> str:
    return f"JUDGE {ctx.team_id} round {ctx.round_number} best {ctx.round_history[-1].evaluation_score}"


async def test_judgment_output_parses_and_uses_settings() -> None:
    seen: dict[str, object] = {}

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["prompt"] = first_user_text(messages)
        seen["instructions"] = info.instructions
        seen["settings"] = info.model_settings
        return ModelResponse(
            parts=[
                ToolCallPart(
                    info.output_tools[0].name,
                    {"should_continue": True, "reasoning": "改善余地あり", "confidence_score": 0.75},
                )
            ]
        )

    settings = JudgmentSettings(model="script:judge", temperature=0.1, timeout_seconds=30)
    with override_models({"script:judge": FunctionModel(fn)}):
        result = await JudgmentClient(settings, render).judge(context())
    assert result.output.should_continue is True
    assert result.output.reasoning == "改善余地あり"
    assert result.output.confidence_score == 0.75
    assert result.usage.requests == 1
    assert seen["prompt"] == "JUDGE alpha round 1 best 55.0"
    assert seen["instructions"] == DEFAULT_JUDGMENT_SYSTEM_INSTRUCTION
    assert seen["settings"] == {"temperature": 0.1, "timeout": 30}


async def test_judgment_confidence_out_of_range_fails_after_retries() -> None:
    calls = 0

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        return ModelResponse(
            parts=[
                ToolCallPart(
                    info.output_tools[0].name,
                    {"should_continue": False, "reasoning": "x", "confidence_score": 7},
                )
            ]
        )

    settings = JudgmentSettings(model="script:judge", max_retries=1)
    with override_models({"script:judge": FunctionModel(fn)}), pytest.raises(JudgmentError) as info:
        await JudgmentClient(settings, render).judge(context())
    assert calls == 2
    assert str(info.value).startswith("judgment failed: UnexpectedModelBehavior:")
