"""Metric base classes and metrics by name, loaded on first use: `config validate` imports no metric code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mixseek.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "LLMMetric": "mixseek.evaluator.metrics.base",
    "Metric": "mixseek.evaluator.metrics.base",
    "MetricOutcome": "mixseek.evaluator.metrics.base",
    "ReferenceMetric": "mixseek.evaluator.metrics.reference",
    "ENTRY_POINT_GROUP": "mixseek.evaluator.metrics.registry",
    "create_metric": "mixseek.evaluator.metrics.registry",
    "known_metrics": "mixseek.evaluator.metrics.registry",
    "metric_class": "mixseek.evaluator.metrics.registry",
    "register_metric": "mixseek.evaluator.metrics.registry",
    "unregister_metric": "mixseek.evaluator.metrics.registry",
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "LLMMetric",
    "Metric",
    "MetricOutcome",
    "ReferenceMetric",
    "create_metric",
    "known_metrics",
    "metric_class",
    "register_metric",
    "unregister_metric",
]

if TYPE_CHECKING:
    from mixseek.evaluator.metrics.base import LLMMetric, Metric, MetricOutcome
    from mixseek.evaluator.metrics.reference import ReferenceMetric
    from mixseek.evaluator.metrics.registry import (
        ENTRY_POINT_GROUP,
        create_metric,
        known_metrics,
        metric_class,
        register_metric,
        unregister_metric,
    )


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
