"""A Sharpe-style metric: the submission's `sharpe: <number>` as its score, unbounded; −100 without one."""

from __future__ import annotations

import re

from mixseek.evaluator.metrics.base import Metric, MetricOutcome

SHARPE_RE = re.compile(r"sharpe:\s*(-?\d+(?:\.\d+)?)")
INVALID = -100.0


class SharpeMetric(Metric):
    scale = "unbounded"  # the class's default: its entry in evaluator.toml gives none

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        found = SHARPE_RE.search(submission)
        if found is None:
            return MetricOutcome(score=INVALID, comment="no valid sharpe ratio")
        return MetricOutcome(score=float(found.group(1)), comment=f"sharpe ratio {found.group(1)}")
