"""Bootstrap confidence intervals with a seeded generator, so a report is reproducible."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The `q` quantile (0..1) of already sorted values, interpolating linearly between ranks."""
    if not sorted_values:
        raise ValueError("no values")
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def bootstrap_mean_ci(
    values: Sequence[float], *, samples: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values`."""
    if not values:
        raise ValueError("no values")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(samples))
    tail = (1.0 - level) / 2
    return percentile(means, tail), percentile(means, 1.0 - tail)
