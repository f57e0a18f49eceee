"""Built-in metrics by name, and loading custom metric classes."""

from __future__ import annotations

from pathlib import Path

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
from mixseek.evaluator.metrics.base import LLMMetric, Metric, MetricOutcome
from mixseek.evaluator.metrics.clarity_coherence import ClarityCoherenceMetric
from mixseek.evaluator.metrics.coverage import CoverageMetric
from mixseek.evaluator.metrics.llm_plain import LLMPlainMetric
from mixseek.evaluator.metrics.relevance import RelevanceMetric
from mixseek.plugins import load_class

BUILTIN_METRIC_CLASSES: dict[str, type[Metric]] = {
    "clarity_coherence": ClarityCoherenceMetric,
    "coverage": CoverageMetric,
    "relevance": RelevanceMetric,
    "llm_plain": LLMPlainMetric,
}


def create_metric(
    config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None = None
) -> Metric:
    """The metric a `[[evaluator.metrics]]` entry describes."""
    cls: type[Metric]
    if config.class_path is not None:
        cls = load_class(config.class_path, Metric, base_dir=base_dir)
    else:
        cls = BUILTIN_METRIC_CLASSES[config.name]
    return cls(config, settings)


__all__ = ["BUILTIN_METRIC_CLASSES", "LLMMetric", "Metric", "MetricOutcome", "create_metric"]
