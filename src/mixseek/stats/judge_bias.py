"""A pairwise judge's measurable biases (order, length, its own model), each a count with a 95% Wilson
interval: the Wilson interval stays inside 0..1 and is honest for the few comparisons a stage makes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054
CONSISTENT = {("A", "B"), ("B", "A"), ("tie", "tie")}
"""(verdict with a shown first, verdict with b shown first) pairs that agree once the order is undone."""


@dataclass(frozen=True)
class Rate:
    """`k` of `n`, their share (None for n = 0) and its 95% Wilson interval."""

    k: int
    n: int
    rate: float | None
    low: float
    high: float

    def text(self) -> str:
        """`2 of 3 (67%, 95% CI 21%–94%)`, or `0 of 0` when there was nothing to count."""
        if self.rate is None:
            return "0 of 0"
        return f"{self.k} of {self.n} ({self.rate:.0%}, 95% CI {self.low:.0%}–{self.high:.0%})"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the proportion k/n; (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p, q = k / n, z * z / n
    centre = (p + q / 2) / (1 + q)
    half = z * math.sqrt(p * (1 - p) / n + q / (4 * n)) / (1 + q)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> Rate:
    return Rate(k, n, k / n if n else None, *wilson(k, n))


def pooled(rates: Iterable[Rate]) -> Rate:
    """The counts of several rates (one judge over several executions) as one rate."""
    counted = [(r.k, r.n) for r in rates]
    return rate(sum(k for k, _ in counted), sum(n for _, n in counted))


def flip_rate(verdicts: Iterable[tuple[str, str]]) -> Rate:
    """Comparisons whose verdicts in the two orders disagree, of all comparisons (position bias)."""
    pairs = list(verdicts)
    return rate(sum(pair not in CONSISTENT for pair in pairs), len(pairs))


def won_by(matches: Iterable[tuple[float, bool, bool]]) -> Rate:
    """Of decisive matches (outcome 1 or 0, for side a) where exactly one side has the trait, those it won."""
    counted = [(outcome == 1.0) == a for outcome, a, b in matches if outcome in (0.0, 1.0) and a != b]
    return rate(sum(counted), len(counted))
