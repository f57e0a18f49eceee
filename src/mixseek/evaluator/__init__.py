"""mixseek.evaluator: LLM-as-a-judge scoring of submissions."""

from mixseek.evaluator.evaluator import EvaluationError, Evaluator
from mixseek.evaluator.models import EvaluationResult, MetricResult, MetricScore

__all__ = ["EvaluationError", "EvaluationResult", "Evaluator", "MetricResult", "MetricScore"]
