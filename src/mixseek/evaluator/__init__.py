"""mixseek.evaluator: LLM-as-a-judge scoring of submissions.

Names are loaded on first use: checking a config's metrics (`metrics.registry.metric_problems`)
goes through this package and must not load the scoring code, and pydantic-ai with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "EvaluationError": "mixseek.evaluator.evaluator",
    "Evaluator": "mixseek.evaluator.evaluator",
    "EvaluationResult": "mixseek.evaluator.models",
    "MetricResult": "mixseek.evaluator.models",
    "MetricScore": "mixseek.evaluator.models",
}

__all__ = ["EvaluationError", "EvaluationResult", "Evaluator", "MetricResult", "MetricScore"]

if TYPE_CHECKING:
    from mixseek.evaluator.evaluator import EvaluationError, Evaluator
    from mixseek.evaluator.models import EvaluationResult, MetricResult, MetricScore


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mixseek.evaluator' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
