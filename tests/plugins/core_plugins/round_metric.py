"""A mixseek-core metric that uses the execution context it is given."""

from __future__ import annotations

from mixseek.evaluator.metrics.base import BaseMetric
from mixseek.models.evaluation_result import MetricScore


class RoundMetric(BaseMetric):
    async def evaluate(
        self,
        user_query: str,
        submission: str,
        execution_id: str | None = None,
        team_id: str | None = None,
        round_number: int | None = None,
        **kwargs: object,
    ) -> MetricScore:
        return MetricScore(
            metric_name="RoundMetric",
            score=40.0 + 10 * (round_number or 0),
            evaluator_comment=f"execution {execution_id} team {team_id} round {round_number}",
        )
