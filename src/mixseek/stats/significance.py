"""Paired tests: is one team better than another on the same tasks, or is it luck?"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test p-value for `wins` against `losses` (ties left out); 1.0 if none decided."""
    if wins < 0 or losses < 0:
        raise ValueError("counts must not be negative")
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_permutation_test(
    differences: Sequence[float], *, exact_up_to: int = 24, samples: int = 10000, seed: int = 0
) -> float:
    """Two-sided p-value that paired `differences` sum this far from 0 by chance: each difference's sign
    flipped, all 2^n ways when n <= `exact_up_to`, else `samples` seeded draws. Uses magnitudes, so it
    has more power than the sign test."""
    n = len(differences)
    observed = abs(sum(differences))
    slack = 1e-9 * max(1.0, sum(abs(d) for d in differences))  # float sums that are equal count as equal
    if n == 0 or observed <= slack:
        return 1.0
    if n > exact_up_to:
        rng = random.Random(seed)
        hits = sum(
            abs(sum(d if rng.random() < 0.5 else -d for d in differences)) >= observed - slack
            for _ in range(samples)
        )
        return (hits + 1) / (samples + 1)
    left, right = _flip_sums(differences[: n // 2]), sorted(_flip_sums(differences[n // 2 :]))
    hits = sum(  # meet in the middle: |a + b| >= observed  ⇔  b >= observed - a  or  b <= -observed - a
        len(right) - bisect_left(right, observed - a - slack) + bisect_right(right, -observed - a + slack)
        for a in left
    )
    return min(1.0, hits / (1 << n))


def _flip_sums(values: Sequence[float]) -> list[float]:
    """The 2^n sums of `values` with every choice of signs."""
    sums = [0.0]
    for value in values:
        sums = [s + value for s in sums] + [s - value for s in sums]
    return sums
