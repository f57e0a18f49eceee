"""Scoring one submission with every configured metric at once."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai import UsageLimitExceeded

import mixseek.telemetry as telemetry
from mixseek.config.evaluator import EvaluatorSettings, scale_bounds
from mixseek.errors import RuntimeFailure, describe_exception
from mixseek.evaluator.metrics.base import Metric
from mixseek.evaluator.metrics.reference import ReferenceMetric
from mixseek.evaluator.metrics.registry import create_metric
from mixseek.evaluator.models import EvaluationResult, JudgeResult, MetricResult
from mixseek.llm.governor import scope_context

EvaluatorPromptRenderer = Callable[[str, str], str]


class EvaluationError(RuntimeFailure):
    """A metric failed after its retries; the evaluation has no score."""

    def __init__(self, metric: str, cause: BaseException) -> None:
        self.metric = metric
        super().__init__(f"evaluator metric '{metric}' failed: {describe_exception(cause)}")


def _context_keys(metric: Metric) -> frozenset[str]:
    """The execution context keywords `metric.score` declares (all, if it takes `**kwargs`)."""
    params = inspect.signature(metric.score).parameters
    every = any(p.kind is p.VAR_KEYWORD for p in params.values())
    return frozenset(k for k in ("execution_id", "team_id", "round_number") if every or k in params)


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
        self.scales = {m.name: scale_bounds(m.config.scale or m.scale) for m in self.metrics}
        self.scale = settings.overall_scale(self.scales)
        # read once: a metric's signature does not change between the rounds it scores
        self._context_keys = {m.name: _context_keys(m) for m in self.metrics}

    @property
    def reference_metrics(self) -> list[str]:
        """The metrics that cannot score without the execution's reference answer."""
        return [m.name for m in self.metrics if isinstance(m, ReferenceMetric) and m.requires_reference]

    async def _run_metric(
        self, metric: Metric, user_prompt: str, submission: str, prompt: str, reference: str | None
    ) -> MetricResult:
        started = time.perf_counter()
        with telemetry.span("mixseek.metric", metric=metric.name, weight=self.weights[metric.name]) as span:
            try:
                keys = self._context_keys[metric.name]
                context: dict[str, Any] = {k: v for k, v in scope_context().items() if k in keys}
                if isinstance(metric, ReferenceMetric):  # only these see the answer key
                    context["reference"] = reference
                outcome = await metric.score(user_prompt, submission, prompt, **context)
                if not self.scales[metric.name].contains(outcome.score):
                    raise ValueError(f"score {outcome.score} is outside its scale {self.scales[metric.name]}")
            except UsageLimitExceeded:
                raise
            except Exception as exc:
                raise EvaluationError(metric.name, exc) from exc
            verdicts = None if outcome.judges is None else [vars(j) for j in outcome.judges]
            judges = None if verdicts is None else len(verdicts)
            telemetry.record(span, score=outcome.score, judges=judges, **telemetry.usage(outcome.usage))
        return MetricResult(
            name=metric.name,
            score=outcome.score,
            comment=outcome.comment,
            weight=self.weights[metric.name],
            usage=outcome.usage,
            duration_ms=(time.perf_counter() - started) * 1000,
            judges=None if verdicts is None else [JudgeResult.model_validate(v) for v in verdicts],
            aggregate=outcome.aggregate,
        )

    async def evaluate(
        self, user_prompt: str, submission: str, *, reference: str | None = None
    ) -> EvaluationResult:
        """Every metric's score and the overall; one failure fails all; `ReferenceMetric`s get `reference`."""
        prompt = self.render_prompt(user_prompt, submission)
        with telemetry.span("mixseek.evaluation", metrics=len(self.metrics)) as span:
            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [
                        group.create_task(
                            self._run_metric(metric, user_prompt, submission, prompt, reference)
                        )
                        for metric in self.metrics
                    ]
            except BaseExceptionGroup as failed:
                # the first metric to fail cancels the others; report that one, not a group
                raise failed.exceptions[0] from None
            results = [task.result() for task in tasks]
            result = EvaluationResult(metrics=results, score=round(self._overall(results), 4))
            telemetry.record(span, score=result.score, **telemetry.usage(result.usage))
            return result

    def _overall(self, results: list[MetricResult]) -> float:
        """The weighted mean, or the one metric's score `combine = "metric:<name>"` names."""
        chosen = [r.score for r in results if f"metric:{r.name}" == self.settings.combine]
        return chosen[0] if chosen else sum(r.score * r.weight for r in results)
