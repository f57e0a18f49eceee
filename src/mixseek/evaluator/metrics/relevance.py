"""`relevance`: does the submission answer the task that was asked?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.config.prompt_defaults import RELEVANCE_INSTRUCTION
from mixseek.evaluator.metrics.base import LLMMetric


class RelevanceMetric(LLMMetric):
    instruction: ClassVar[str] = RELEVANCE_INSTRUCTION
