"""Bradley–Terry strengths from pairwise verdicts (minorise–maximise, a tie half a win each; `prior` virtual
ties against an anchor of strength 1 keep every strength finite) with bootstrap intervals, as centred logs."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from mixseek.stats.resampling import percentile

MAX_ITERATIONS = 2000
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Comparison:
    """One decided match: `outcome` is 1.0 when `first` won, 0.0 when `second` won, 0.5 for a tie."""

    first: str
    second: str
    outcome: float

    def __post_init__(self) -> None:
        if self.outcome not in (0.0, 0.5, 1.0):
            raise ValueError(f"outcome must be 0, 0.5 or 1, not {self.outcome}")
        if self.first == self.second:
            raise ValueError(f"{self.first!r} cannot be compared with itself")


@dataclass(frozen=True)
class Strength:
    item: str
    strength: float
    low: float
    high: float
    rank: int
    wins: float
    matches: int


def fit_strengths(
    items: Sequence[str], comparisons: Sequence[Comparison], *, prior: float = 1.0
) -> dict[str, float]:
    """Centred log-strengths of `items` from `comparisons` (which may name only these items)."""
    if prior <= 0:
        raise ValueError("prior must be positive")
    index = {item: i for i, item in enumerate(items)}
    if len(index) != len(items):
        raise ValueError("items must be distinct")
    k = len(items)
    wins = [prior / 2] * k
    games: dict[tuple[int, int], float] = {}
    for c in comparisons:
        a, b = index[c.first], index[c.second]
        wins[a] += c.outcome
        wins[b] += 1.0 - c.outcome
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + 1.0
    opponents: list[list[tuple[int, float]]] = [[] for _ in range(k)]
    for (a, b), n in games.items():
        opponents[a].append((b, n))
        opponents[b].append((a, n))
    p = [1.0] * k
    for _ in range(MAX_ITERATIONS):
        updated = []
        for i in range(k):
            denominator = prior / (p[i] + 1.0) + sum(n / (p[i] + p[j]) for j, n in opponents[i])
            updated.append(wins[i] / denominator)
        change = max(abs(math.log(u) - math.log(v)) for u, v in zip(updated, p, strict=True)) if k else 0.0
        p = updated
        if change < TOLERANCE:
            break
    logs = [math.log(v) for v in p]
    centre = sum(logs) / k if k else 0.0
    return {item: logs[i] - centre for item, i in index.items()}


def bradley_terry(
    items: Sequence[str],
    comparisons: Sequence[Comparison],
    *,
    samples: int = 500,
    level: float = 0.95,
    seed: int = 0,
    prior: float = 1.0,
) -> list[Strength]:
    """Strengths with percentile-bootstrap intervals (comparisons resampled), strongest first."""
    point = fit_strengths(items, comparisons, prior=prior)
    draws: dict[str, list[float]] = {item: [] for item in items}
    rng = random.Random(seed)
    if comparisons:
        for _ in range(samples):
            resampled = rng.choices(comparisons, k=len(comparisons))
            for item, value in fit_strengths(items, resampled, prior=prior).items():
                draws[item].append(value)
    tail = (1.0 - level) / 2
    won: dict[str, float] = dict.fromkeys(items, 0.0)
    played: dict[str, int] = dict.fromkeys(items, 0)
    for c in comparisons:
        won[c.first] += c.outcome
        won[c.second] += 1.0 - c.outcome
        played[c.first] += 1
        played[c.second] += 1
    order = sorted(items, key=lambda item: (-point[item], item))
    result = []
    for rank, item in enumerate(order, start=1):
        values = sorted(draws[item]) or [point[item]]
        result.append(
            Strength(
                item=item,
                strength=point[item],
                low=percentile(values, tail),
                high=percentile(values, 1.0 - tail),
                rank=rank,
                wins=won[item],
                matches=played[item],
            )
        )
    return result
