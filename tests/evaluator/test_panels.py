"""Judge panels: several models score one metric at once; the configured aggregate is its score,
every judge's score and comment is kept, and a failing judge leaves a hole, not a failed metric."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.evaluator.evaluator import EvaluationError, Evaluator
from mixseek.evaluator.models import EvaluationResult
from mixseek.llm import override_models
from mixseek.prompt_builder.formatters import format_submission_history
from mixseek.round_state import RoundState


def render(user_prompt: str, submission: str) -> str:
    return f"TASK={user_prompt}\nSUBMISSION={submission}"


def judge(score: float, comment: str, *, together: asyncio.Barrier | None = None) -> FunctionModel:
    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if together is not None:
            # passes only once every judge is in flight: judges asked one after another never get here
            async with asyncio.timeout(60):
                await together.wait()
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": comment})],
            usage=RequestUsage(input_tokens=10, output_tokens=2),
        )

    return FunctionModel(fn)


def broken() -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"score": -5, "comment": "x"})])

    return FunctionModel(fn)


def panel(aggregate: str = "mean", judges: int = 3, **extra: object) -> EvaluatorSettings:
    return EvaluatorSettings(
        model="script:unused",
        max_retries=1,
        metrics=[
            {  # type: ignore[list-item]
                "name": "relevance",
                "models": [f"script:j{i}" for i in range(1, judges + 1)],
                "aggregate": aggregate,
                **extra,
            }
        ],
    )


JUDGES = {"script:j1": judge(40, "weak"), "script:j2": judge(70, "fine"), "script:j3": judge(100, "great")}


async def evaluate(settings: EvaluatorSettings, models: dict[str, FunctionModel]) -> EvaluationResult:
    with override_models(models):
        return await Evaluator(settings, render).evaluate("課題", "回答")


@pytest.mark.parametrize(
    ("aggregate", "extra", "expected"),
    [
        ("mean", {}, 70.0),
        ("median", {}, 70.0),
        ("trimmed_mean", {"trim": 0.34}, 70.0),  # floor(0.34 * 3) = 1 cut from each end
        ("trimmed_mean", {"trim": 0.2}, 70.0),  # floor(0.6) = 0: the plain mean
    ],
)
async def test_a_panel_of_three_stores_every_judge_and_the_aggregate(
    aggregate: str, extra: dict[str, object], expected: float
) -> None:
    all_three = asyncio.Barrier(3)
    models = {
        "script:j1": judge(40, "weak", together=all_three),
        "script:j2": judge(70, "fine", together=all_three),
        "script:j3": judge(100, "great", together=all_three),
    }
    result = await evaluate(panel(aggregate, **extra), models)
    assert result.score == expected
    assert result.score_details == {
        "relevance": {
            "score": expected,
            "comment": "[script:j1] weak\n[script:j2] fine\n[script:j3] great",
            "judges": [
                {"model": "script:j1", "score": 40.0, "comment": "weak", "error": None},
                {"model": "script:j2", "score": 70.0, "comment": "fine", "error": None},
                {"model": "script:j3", "score": 100.0, "comment": "great", "error": None},
            ],
            "aggregate": aggregate,
        }
    }
    assert result.usage.requests == 3


@pytest.mark.parametrize(
    ("aggregate", "expected"), [("mean", 53.0), ("median", 60.0), ("trimmed_mean", 55.0)]
)
async def test_the_aggregates_differ_on_a_skewed_panel(aggregate: str, expected: float) -> None:
    # mean (0+40+60+65+100)/5 = 53; median 60; trim 0.2 of 5 cuts one each end: (40+60+65)/3 = 55
    scores = [0.0, 40.0, 60.0, 65.0, 100.0]
    models = {f"script:j{i}": judge(s, f"c{i}") for i, s in enumerate(scores, start=1)}
    extra = {"trim": 0.2} if aggregate == "trimmed_mean" else {}
    result = await evaluate(panel(aggregate, judges=5, **extra), models)
    details = result.score_details["relevance"]
    assert [j["score"] for j in details["judges"]] == scores
    assert (details["score"], details["aggregate"]) == (expected, aggregate)
    assert result.score == expected


async def test_a_failing_judge_is_recorded_and_the_others_score_the_metric() -> None:
    models = {**JUDGES, "script:j2": broken()}
    result = await evaluate(panel("mean"), models)
    details = result.score_details["relevance"]
    assert details["score"] == 70.0  # (40 + 100) / 2
    assert details["comment"] == "[script:j1] weak\n[script:j3] great"
    failed = details["judges"][1]
    assert (failed["model"], failed["score"], failed["comment"]) == ("script:j2", None, None)
    assert failed["error"].startswith("UnexpectedModelBehavior: ")
    assert [j["error"] for j in (details["judges"][0], details["judges"][2])] == [None, None]


async def test_every_judge_failing_fails_the_metric_naming_each() -> None:
    models = {"script:j1": broken(), "script:j2": broken(), "script:j3": broken()}
    with pytest.raises(EvaluationError) as info:
        await evaluate(panel("median"), models)
    message = str(info.value)
    assert message.startswith(
        "evaluator metric 'relevance' failed: PanelFailed: all 3 judges failed: "
        "script:j1: UnexpectedModelBehavior:"
    )
    assert "; script:j2: UnexpectedModelBehavior:" in message
    assert "; script:j3: UnexpectedModelBehavior:" in message


async def test_a_one_model_metric_keeps_the_seed_form() -> None:
    settings = EvaluatorSettings(model="script:j1", metrics=[{"name": "relevance"}])  # type: ignore[list-item]
    result = await evaluate(settings, JUDGES)
    assert result.score_details == {"relevance": {"score": 40.0, "comment": "weak"}}
    assert "judges" not in result.metrics[0].model_dump(mode="json")


async def test_the_round_prompt_shows_a_panel_metric_by_its_aggregate() -> None:
    result = await evaluate(panel("median"), JUDGES)
    state = RoundState(
        round_number=1,
        submission_content="回答",
        evaluation_score=result.score,
        score_details=result.score_details,
        round_started_at=datetime(2025, 1, 1, tzinfo=UTC),
        round_ended_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    assert format_submission_history([state]) == (
        "## ラウンド 1\nスコア: 70.00/100\nスコア詳細:\n"
        '{\n  "relevance": {\n    "score": 70.0,\n'
        '    "comment": "[script:j1] weak\\n[script:j2] fine\\n[script:j3] great"\n  }\n}\n'
        "あなたの提出内容: 回答"
    )


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        (
            {"model": "script:a", "models": ["script:b"]},
            "give either model (one judge) or models (a panel), not both",
        ),
        ({"models": []}, "models must name at least one judge model"),
        ({"models": ["script:a"], "trim": 0.1}, "trim applies only to aggregate = 'trimmed_mean'"),
        ({"models": ["script:a"], "aggregate": "trimmed_mean", "trim": 0.5}, "less than 0.5"),
        ({"models": ["script:a"], "aggregate": "mode"}, "'mean', 'median' or 'trimmed_mean'"),
    ],
)
def test_bad_panel_settings_are_refused(metric: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        EvaluatorSettings(metrics=[{"name": "relevance", **metric}])  # type: ignore[list-item]
    assert message in str(info.value)
