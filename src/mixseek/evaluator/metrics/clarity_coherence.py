"""`clarity_coherence`: is the submission clear and logically organised?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.config.prompt_defaults import CLARITY_COHERENCE_INSTRUCTION
from mixseek.evaluator.metrics.base import LLMMetric


class ClarityCoherenceMetric(LLMMetric):
    instruction: ClassVar[str] = CLARITY_COHERENCE_INSTRUCTION
