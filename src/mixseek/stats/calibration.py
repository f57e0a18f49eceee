"""How well a judge's scores track human scores of the same submissions."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation; None with fewer than two pairs or when either side does not vary."""
    _check_pairs(x, y)
    try:
        return statistics.correlation(x, y)
    except statistics.StatisticsError:
        return None


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman rank correlation (Pearson on tie-averaged ranks)."""
    _check_pairs(x, y)
    return pearson(_ranks(x), _ranks(y))


def mean_absolute_error(judge: Sequence[float], human: Sequence[float]) -> float:
    _check_pairs(judge, human)
    if not judge:
        raise ValueError("no pairs")
    return sum(abs(a - b) for a, b in zip(judge, human, strict=True)) / len(judge)


@dataclass(frozen=True)
class Calibration:
    """A judge (or panel) against human labels: agreement, typical error and systematic bias."""

    pairs: int
    pearson: float | None
    spearman: float | None
    mae: float
    bias: float
    """Mean of judge minus human: positive when the judge scores more generously."""


def calibrate(judge: Sequence[float], human: Sequence[float]) -> Calibration:
    _check_pairs(judge, human)
    if not judge:
        raise ValueError("no pairs")
    return Calibration(
        pairs=len(judge),
        pearson=pearson(judge, human),
        spearman=spearman(judge, human),
        mae=mean_absolute_error(judge, human),
        bias=sum(a - b for a, b in zip(judge, human, strict=True)) / len(judge),
    )


def _check_pairs(x: Sequence[float], y: Sequence[float]) -> None:
    if len(x) != len(y):
        raise ValueError(f"{len(x)} scores against {len(y)}")
