"""`ReferenceMetric`: metrics given the execution's reference answer (hidden from teams), as `reference`."""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

from mixseek.evaluator.metrics.base import Metric, MetricOutcome


class ReferenceMetric(Metric):
    """A metric that needs the execution's reference answer."""

    requires_reference: ClassVar[bool] = True
    """True: an execution without a reference answer is refused at its start (exit 2), rather
    than scored without one. False: `score` gets `reference=None` and copes."""

    @abstractmethod
    async def score(
        self, user_prompt: str, submission: str, evaluator_prompt: str, *, reference: str | None = None
    ) -> MetricOutcome:
        """`reference` is the execution's reference answer, None when it has none."""
