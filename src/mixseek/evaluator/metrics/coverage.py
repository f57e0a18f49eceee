"""`coverage`: does the submission address everything the task asks for?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.config.prompt_defaults import COVERAGE_INSTRUCTION
from mixseek.evaluator.metrics.base import LLMMetric


class CoverageMetric(LLMMetric):
    instruction: ClassVar[str] = COVERAGE_INSTRUCTION
