"""Scoring one submission with every configured metric at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from pydantic_ai import UsageLimitExceeded

import mixseek.telemetry as telemetry
from mixseek.config.evaluator import EvaluatorSettings
from mixseek.errors import RuntimeFailure, describe_exception
from mixseek.evaluator.metrics import Metric, create_metric
from mixseek.evaluator.models import EvaluationResult, MetricResult

EvaluatorPromptRenderer = Callable[[str, str], str]


class EvaluationError(RuntimeFailure):
    """A metric failed after its retries; the evaluation has no score."""

    def __init__(self, metric: str, cause: BaseException) -> None:
        self.metric = metric
        super().__init__(f"evaluator metric '{metric}' failed: {describe_exception(cause)}")


class Evaluator:
    """Runs the metrics concurrently and combines them with normalised weights."""

    def __init__(
        self,
        settings: EvaluatorSettings,
        render_prompt: EvaluatorPromptRenderer,
        *,
        base_dir: Path | None = None,
        metrics: list[Metric] | None = None,
    ) -> None:
        self.settings = settings
        self.render_prompt = render_prompt
        self.weights = settings.normalized_weights()
        self.metrics = metrics or [create_metric(m, settings, base_dir=base_dir) for m in settings.metrics]

    async def _run_metric(
        self, metric: Metric, user_prompt: str, submission: str, prompt: str
    ) -> MetricResult:
        started = time.perf_counter()
        with telemetry.span("mixseek.metric", metric=metric.name, weight=self.weights[metric.name]) as span:
            try:
                outcome = await metric.score(user_prompt, submission, prompt)
            except UsageLimitExceeded:
                raise
            except Exception as exc:
                raise EvaluationError(metric.name, exc) from exc
            telemetry.record(span, score=outcome.score, **telemetry.usage(outcome.usage))
            if not 0.0 <= outcome.score <= 100.0:
                raise EvaluationError(metric.name, ValueError(f"score {outcome.score} is outside 0–100"))
        return MetricResult(
            name=metric.name,
            score=outcome.score,
            comment=outcome.comment,
            weight=self.weights[metric.name],
            usage=outcome.usage,
            duration_ms=(time.perf_counter() - started) * 1000,
        )

    async def evaluate(self, user_prompt: str, submission: str) -> EvaluationResult:
        """Every metric's score and their weighted mean; the first metric failure fails it all."""
        prompt = self.render_prompt(user_prompt, submission)
        with telemetry.span("mixseek.evaluation", metrics=len(self.metrics)) as span:
            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [
                        group.create_task(self._run_metric(metric, user_prompt, submission, prompt))
                        for metric in self.metrics
                    ]
            except BaseExceptionGroup as failed:
                # the first metric to fail cancels the others; report that one, not a group
                raise failed.exceptions[0] from None
            results = [task.result() for task in tasks]
            overall = sum(r.score * r.weight for r in results)
            result = EvaluationResult(metrics=results, overall_score=round(min(100.0, max(0.0, overall)), 4))
            telemetry.record(span, score=result.overall_score, **telemetry.usage(result.usage))
            return result
