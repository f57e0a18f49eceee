"""Evaluator: metrics run concurrently, weights combine them, failures name the metric."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.evaluator.evaluator import EvaluationError, Evaluator
from mixseek.evaluator.metrics.clarity_coherence import ClarityCoherenceMetric
from mixseek.llm import override_models
from scripting import first_user_text


def render(user_prompt: str, submission: str) -> str:
    return f"TASK={user_prompt}\nSUBMISSION={submission}"


def scoring_model(
    score: float,
    comment: str,
    *,
    delay: float = 0.0,
    seen: list[str] | None = None,
    together: asyncio.Barrier | None = None,
) -> FunctionModel:
    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.append(f"{info.instructions}|{first_user_text(messages)}")
        if together is not None:
            # passes only once every metric is in flight: metrics run one after another never get here
            async with asyncio.timeout(60):
                await together.wait()
        await asyncio.sleep(delay)
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": comment})],
            usage=RequestUsage(input_tokens=11, output_tokens=3),
        )

    return FunctionModel(fn)


def settings(weights: tuple[float | None, float | None, float | None] = (0.5, 0.3, 0.2)) -> EvaluatorSettings:
    names = ("clarity_coherence", "coverage", "relevance")
    return EvaluatorSettings(
        model="script:judge",
        metrics=[
            {"name": n, "weight": w, "model": f"script:{n}"}  # type: ignore[list-item]
            for n, w in zip(names, weights, strict=True)
        ],
    )


async def test_three_metrics_run_concurrently_and_weights_combine_them() -> None:
    seen: list[str] = []
    all_three = asyncio.Barrier(3)
    models = {
        "script:clarity_coherence": scoring_model(80, "明瞭", seen=seen, together=all_three),
        "script:coverage": scoring_model(60, "不足あり", seen=seen, together=all_three),
        "script:relevance": scoring_model(90, "的確", seen=seen, together=all_three),
    }
    with override_models(models):
        evaluator = Evaluator(settings(), render)
        result = await evaluator.evaluate("課題", "回答")
    assert result.score == pytest.approx(80 * 0.5 + 60 * 0.3 + 90 * 0.2)
    assert [(m.name, m.score, m.comment, m.weight) for m in result.metrics] == [
        ("clarity_coherence", 80, "明瞭", 0.5),
        ("coverage", 60, "不足あり", 0.3),
        ("relevance", 90, "的確", 0.2),
    ]
    assert result.score_details == {
        "clarity_coherence": {"score": 80.0, "comment": "明瞭"},
        "coverage": {"score": 60.0, "comment": "不足あり"},
        "relevance": {"score": 90.0, "comment": "的確"},
    }
    assert result.feedback == "[clarity_coherence] 明瞭\n[coverage] 不足あり\n[relevance] 的確"
    assert (result.usage.requests, result.usage.input_tokens, result.usage.output_tokens) == (3, 33, 9)
    assert all(s.endswith("|TASK=課題\nSUBMISSION=回答") for s in seen)
    assert any(s.startswith(ClarityCoherenceMetric.instruction) for s in seen)


async def test_no_weights_means_equal_weights() -> None:
    models = {
        "script:clarity_coherence": scoring_model(90, "a"),
        "script:coverage": scoring_model(60, "b"),
        "script:relevance": scoring_model(30, "c"),
    }
    with override_models(models):
        result = await Evaluator(settings((None, None, None)), render).evaluate("p", "s")
    assert result.score == pytest.approx(60.0)
    assert [m.weight for m in result.metrics] == pytest.approx([1 / 3, 1 / 3, 1 / 3])


async def test_out_of_range_score_is_sent_back_to_the_model_and_retried() -> None:
    calls = 0

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        score = 150 if calls == 1 else 70
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": "x"})]
        )

    evaluator_settings = EvaluatorSettings(model="script:judge", metrics=[{"name": "llm_plain"}])  # type: ignore[list-item]
    with override_models({"script:judge": FunctionModel(fn)}):
        result = await Evaluator(evaluator_settings, render).evaluate("p", "s")
    assert calls == 2
    assert result.score == 70


async def test_metric_failing_after_retries_fails_the_evaluation_naming_it() -> None:
    def always_bad(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"score": -5, "comment": "x"})])

    models = {
        "script:clarity_coherence": scoring_model(80, "ok"),
        "script:coverage": FunctionModel(always_bad),
        "script:relevance": scoring_model(90, "ok"),
    }
    with override_models(models), pytest.raises(EvaluationError) as info:
        await Evaluator(settings(), render).evaluate("p", "s")
    assert str(info.value).startswith("evaluator metric 'coverage' failed: UnexpectedModelBehavior:")
    assert info.value.metric == "coverage"


async def test_custom_metric_class_from_a_file(tmp_path: Path) -> None:
    plugin = tmp_path / "length_metric.py"
    plugin.write_text(
        "from mixseek.evaluator.metrics import Metric, MetricOutcome\n"
        "class LengthMetric(Metric):\n"
        "    async def score(self, user_prompt, submission, evaluator_prompt):\n"
        "        n = len(submission)\n"
        "        return MetricOutcome(score=min(100.0, n * 10.0), comment=f'{n} chars')\n",
        encoding="utf-8",
    )
    evaluator_settings = EvaluatorSettings(
        model="script:judge",
        metrics=[
            {"name": "length", "class_path": "length_metric.py:LengthMetric", "weight": 1},  # type: ignore[list-item]
            {"name": "relevance", "weight": 3},  # type: ignore[list-item]
        ],
    )
    with override_models({"script:judge": scoring_model(40, "meh")}):
        result = await Evaluator(evaluator_settings, render, base_dir=tmp_path).evaluate("p", "abcd")
    assert [(m.name, m.score, m.comment) for m in result.metrics] == [
        ("length", 40.0, "4 chars"),
        ("relevance", 40.0, "meh"),
    ]
    assert result.score == pytest.approx(40.0)
