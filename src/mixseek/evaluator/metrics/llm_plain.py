"""`llm_plain`: an overall judgement, steered by the metric's own system_instruction if given."""

from __future__ import annotations

from mixseek.evaluator.metrics.base import LLMMetric


class LLMPlainMetric(LLMMetric):
    """Uses the generic judge instruction unless evaluator.toml gives one."""
