"""mixseek.evaluator: LLM-as-a-judge scoring of submissions.

Names are loaded on first use: checking a config's metrics (`metrics.registry.metric_problems`)
goes through this package and must not load the scoring code, and pydantic-ai with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mixseek.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "EvaluationError": "mixseek.evaluator.evaluator",
    "Evaluator": "mixseek.evaluator.evaluator",
    "EvaluationResult": "mixseek.evaluator.models",
    "JudgeResult": "mixseek.evaluator.models",
    "MetricResult": "mixseek.evaluator.models",
    "MetricScore": "mixseek.evaluator.models",
}

__all__ = ["EvaluationError", "EvaluationResult", "Evaluator", "JudgeResult", "MetricResult", "MetricScore"]

if TYPE_CHECKING:
    from mixseek.evaluator.evaluator import EvaluationError, Evaluator
    from mixseek.evaluator.models import EvaluationResult, JudgeResult, MetricResult, MetricScore


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
