"""Paired tests: is one team better than another on the same tasks, or is it luck?"""

from __future__ import annotations

import math


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
