"""Metrics: the base classes, and metrics by name (built-in, registered, installed or custom)."""

from __future__ import annotations

from mixseek.evaluator.metrics.base import LLMMetric, Metric, MetricOutcome
from mixseek.evaluator.metrics.registry import (
    ENTRY_POINT_GROUP,
    create_metric,
    known_metrics,
    metric_class,
    register_metric,
    unregister_metric,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "LLMMetric",
    "Metric",
    "MetricOutcome",
    "create_metric",
    "known_metrics",
    "metric_class",
    "register_metric",
    "unregister_metric",
]
