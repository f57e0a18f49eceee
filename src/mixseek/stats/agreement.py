"""Panel agreement: Krippendorff's alpha (interval), which, unlike an ICC, takes rounds a judge left out."""

from __future__ import annotations

from collections.abc import Sequence


def krippendorff_alpha_interval(units: Sequence[Sequence[float | None]]) -> float | None:
    """Alpha over `units` (None: no rating): 1 perfect, 0 chance; None: too few ratings or no variation."""
    pairable = [[v for v in unit if v is not None] for unit in units]
    pairable = [values for values in pairable if len(values) >= 2]
    if len(pairable) < 2:
        return None
    everything = [v for values in pairable for v in values]
    n = len(everything)
    observed = 0.0
    for values in pairable:
        within = sum((a - b) ** 2 for a in values for b in values)
        observed += within / (len(values) - 1)
    observed /= n
    # the sum over all ordered pairs of (a - b)^2 equals 2 * n * sum((a - mean)^2)
    mean = sum(everything) / n
    expected = 2 * n * sum((v - mean) ** 2 for v in everything) / (n * (n - 1))
    if expected == 0:
        return None
    return 1.0 - observed / expected


def spread(scores: Sequence[float]) -> float:
    """Highest minus lowest score: how far apart a panel's judges were on one submission."""
    return max(scores) - min(scores) if scores else 0.0
