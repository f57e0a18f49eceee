"""`patterns`: required and forbidden regular expressions. No model call.

Each pattern is a Python regular expression (`re.search` anywhere in the submission; inline
flags such as `(?i)` for case-insensitive work), checked to compile when evaluator.toml loads.
Every required pattern that matches and every forbidden one that does not is a passed check;
the score is the share of checks passed × 100.
"""

from __future__ import annotations

import re

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
from mixseek.evaluator.metrics.base import Metric, MetricOutcome

SHOWN_MATCH = 40
"""Characters of a forbidden match quoted in the comment."""


class PatternsMetric(Metric):
    """Checks a format or content rule exactly: a heading present, a phrase absent, and so on."""

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        super().__init__(config, settings)
        self.required = [re.compile(p) for p in config.required_patterns or []]
        self.forbidden = [re.compile(p) for p in config.forbidden_patterns or []]

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        failures = [f"required /{p.pattern}/ not found" for p in self.required if not p.search(submission)]
        for pattern in self.forbidden:
            found = pattern.search(submission)
            if found is not None:
                failures.append(f"forbidden /{pattern.pattern}/ found: {found.group(0)[:SHOWN_MATCH]!r}")
        total = len(self.required) + len(self.forbidden)
        passed = total - len(failures)
        comment = f"{passed}/{total} checks passed"
        return MetricOutcome(
            score=100.0 * passed / total, comment="; ".join([comment, *failures]) if failures else comment
        )
