"""`patterns`, no model call: the share of required and forbidden regular expressions passed × 100, each
failed one named (by its `label`) in the comment a team reads next round; compiled when the file loads."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig, PatternEntry
from mixseek.evaluator.metrics.base import Metric, MetricOutcome

SHOWN_MATCH = 40
"""Characters of a forbidden match quoted in the comment."""


@dataclass(frozen=True)
class _Check:
    regex: re.Pattern[str]
    label: str | None

    @classmethod
    def of(cls, entry: PatternEntry) -> _Check:
        if isinstance(entry, str):
            return cls(re.compile(entry), None)
        return cls(re.compile(entry.pattern), entry.label)


class PatternsMetric(Metric):
    """Checks a format or content rule exactly: a heading present, a phrase absent, and so on."""

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        super().__init__(config, settings)
        self.required = [_Check.of(p) for p in config.required_patterns or []]
        self.forbidden = [_Check.of(p) for p in config.forbidden_patterns or []]

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        failures = [
            f"missing: {check.label}" if check.label else f"required /{check.regex.pattern}/ not found"
            for check in self.required
            if not check.regex.search(submission)
        ]
        for check in self.forbidden:
            found = check.regex.search(submission)
            if found is None:
                continue
            quoted = repr(found.group(0)[:SHOWN_MATCH])
            failures.append(
                f"present: {check.label} ({quoted})"
                if check.label
                else f"forbidden /{check.regex.pattern}/ found: {quoted}"
            )
        total = len(self.required) + len(self.forbidden)
        passed = total - len(failures)
        comment = f"{passed}/{total} checks passed"
        return MetricOutcome(
            score=100.0 * passed / total, comment="; ".join([comment, *failures]) if failures else comment
        )
