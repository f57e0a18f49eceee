"""mixseek-core's metric result (`mixseek.models.evaluation_result.MetricScore`), which a `BaseMetric`
returns; `BaseMetric.score` turns it into mixseek's `MetricOutcome`."""

from __future__ import annotations

from pydantic import BaseModel, Field


class MetricScore(BaseModel):
    metric_name: str = Field(min_length=1)
    score: float
    evaluator_comment: str = ""
