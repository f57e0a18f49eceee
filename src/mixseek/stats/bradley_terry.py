"""Bradley–Terry strengths from pairwise verdicts (a tie half a win each; `prior` virtual ties against an
anchor of strength 1 keep every strength finite) with bootstrap intervals, as centred logs. Fitted as a
logistic regression by Newton's method, every bootstrap sample at once; covariates (style control) fit too."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mixseek.stats.resampling import percentile

MAX_ITERATIONS = 100
TOLERANCE = 1e-4  # on the last Newton step: converging quadratically, the error left is about its square
MAX_STEP = 2.0  # a longer Newton step is shortened: far from the optimum a full one can overshoot
RIDGE = (
    1e-9  # on covariate effects only: a covariate that never varies gets an effect of 0, not a singular fit
)


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


@dataclass(frozen=True)
class _Cells:
    """Flat indices, for every bootstrap sample, that sum a (samples × comparisons) array by team and by
    pair (bincount) and put the pairs' sums into the flattened information matrices."""

    first: np.ndarray
    second: np.ndarray
    pairs: np.ndarray
    upper: np.ndarray
    lower: np.ndarray


def _logistic(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x), in place: x is a fresh array."""
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += 1.0
    np.reciprocal(x, out=x)
    return x


@dataclass(frozen=True)
class _Design:
    """The comparisons as arrays: who played first and second, the outcome, the covariates' row each."""

    k: int
    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    covariates: np.ndarray

    def fit(self, weights: np.ndarray, prior: float, start: np.ndarray | None = None) -> np.ndarray:
        """Maximum-likelihood coefficients, one row per row of `weights` (how often each comparison counts):
        the k log-strengths (anchor 0), then the covariates' effects."""
        k, rows, samples = self.k, len(self.first), len(weights)
        n = k + self.covariates.shape[1]
        theta = np.zeros((samples, n)) if start is None else np.tile(start, (samples, 1))
        design = np.zeros((rows, n))
        design[np.arange(rows), self.first] = 1.0
        design[np.arange(rows), self.second] = -1.0
        design[:, k:] = self.covariates
        cells = self._cells(samples, n)
        info = np.zeros((samples, n, n))  # rewritten in place: the cells no pair fills stay 0
        for _ in range(MAX_ITERATIONS):
            # each comparison's log-odds; np.take is faster than a product with the design matrix
            p = np.take(theta, self.first, axis=1) - np.take(theta, self.second, axis=1)
            p = _logistic(p + theta[:, k:] @ self.covariates.T if n > k else p)
            anchor = _logistic(theta[:, :k].copy())
            residual = weights * (self.outcome - p)
            gradient = np.hstack(
                [self._by_team(cells, residual, -1.0) + prior * (0.5 - anchor), residual @ self.covariates]
            )
            p *= 1.0 - p
            p *= weights
            self._information(info, p, design, cells)
            info[:, np.arange(k), np.arange(k)] += prior * anchor * (1.0 - anchor)
            # symmetric: solved as its transpose, which numpy copies faster (already column-major)
            step = np.linalg.solve(info.transpose(0, 2, 1), gradient[..., None])[..., 0]
            longest = np.abs(step).max(axis=1, initial=0.0)
            theta += step * np.minimum(1.0, MAX_STEP / np.maximum(longest, MAX_STEP))[:, None]
            if longest.max(initial=0.0) < TOLERANCE:
                break
        return theta

    def _cells(self, samples: int, n: int) -> _Cells:
        k, sample = self.k, np.arange(samples)[:, None]
        low, high = np.minimum(self.first, self.second), np.maximum(self.first, self.second)
        pair, group = np.unique(low * k + high, return_inverse=True)
        low, high = pair // k, pair % k
        return _Cells(
            first=(sample * k + self.first).ravel(),
            second=(sample * k + self.second).ravel(),
            pairs=(sample * len(pair) + group.reshape(-1)).ravel(),
            upper=(sample * n * n + low * n + high).ravel(),
            lower=(sample * n * n + high * n + low).ravel(),
        )

    def _by_team(self, cells: _Cells, values: np.ndarray, sign: float) -> np.ndarray:
        """Per sample and team, the sum of `values` over its comparisons (`sign` times it when second)."""
        size = len(values) * self.k
        flat = values.ravel()
        total = np.bincount(cells.first, flat, size) + sign * np.bincount(cells.second, flat, size)
        return total.reshape(len(values), self.k)

    def _information(self, info: np.ndarray, d: np.ndarray, design: np.ndarray, cells: _Cells) -> None:
        """Into `info`: the observed information (minus the log-likelihood's Hessian, plus the ridge)."""
        n, k = design.shape[1], self.k
        by_pair = -np.bincount(cells.pairs, d.ravel(), len(cells.upper))
        info.reshape(-1)[cells.upper] = by_pair
        info.reshape(-1)[cells.lower] = by_pair
        info[:, np.arange(k), np.arange(k)] = self._by_team(cells, d, 1.0)
        for j in range(k, n):
            column = d @ (design[:, j : j + 1] * design)
            info[:, :, j] = column
            info[:, j, :] = column
            info[:, j, j] += RIDGE


def _design(
    items: Sequence[str], comparisons: Sequence[Comparison], covariates: Sequence[Sequence[float]] | None
) -> _Design:
    index = {item: i for i, item in enumerate(items)}
    if len(index) != len(items):
        raise ValueError("items must be distinct")
    rows = np.asarray(covariates if covariates is not None else [[]] * len(comparisons), dtype=float)
    if len(rows) != len(comparisons):
        raise ValueError("one row of covariates per comparison")
    return _Design(
        k=len(items),
        first=np.array([index[c.first] for c in comparisons], dtype=np.intp),
        second=np.array([index[c.second] for c in comparisons], dtype=np.intp),
        outcome=np.array([c.outcome for c in comparisons], dtype=float),
        covariates=rows.reshape(len(comparisons), -1) if len(rows) else np.zeros((0, 0)),
    )


def _centred(theta: np.ndarray, k: int) -> np.ndarray:
    centred: np.ndarray = theta[..., :k] - theta[..., :k].mean(axis=-1, keepdims=True)
    return centred


def fit_strengths(
    items: Sequence[str],
    comparisons: Sequence[Comparison],
    *,
    prior: float = 1.0,
    covariates: Sequence[Sequence[float]] | None = None,
) -> dict[str, float]:
    """Centred log-strengths of `items` from `comparisons` (which may name only these items); with
    `covariates` (a row per comparison: its first's features minus its second's), their effect removed."""
    ranking = bradley_terry(items, comparisons, samples=0, prior=prior, covariates=covariates)
    return {s.item: s.strength for s in ranking}


def resample_counts(seed: int, rows: int, samples: int) -> np.ndarray:
    """How often each of `rows` comparisons is drawn in each bootstrap sample: exactly the draws of
    `random.Random(seed).choices`, made by numpy's Mersenne Twister from the same state."""
    state = random.Random(seed).getstate()[1]
    twister = np.random.RandomState()
    twister.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), int(state[-1]), 0, 0.0))
    draws = np.floor(twister.random_sample((samples, rows)) * float(rows)).astype(np.intp)
    cells = (draws + rows * np.arange(samples)[:, None]).ravel()
    return np.bincount(cells, minlength=samples * rows).reshape(samples, rows).astype(float)


def bradley_terry(
    items: Sequence[str],
    comparisons: Sequence[Comparison],
    *,
    samples: int = 500,
    level: float = 0.95,
    seed: int = 0,
    prior: float = 1.0,
    covariates: Sequence[Sequence[float]] | None = None,
) -> list[Strength]:
    """Strengths with percentile-bootstrap intervals (comparisons resampled), strongest first."""
    if prior <= 0:
        raise ValueError("prior must be positive")
    design = _design(items, comparisons, covariates)
    k = design.k
    if not k:
        return []
    start = design.fit(np.ones((1, len(comparisons))), prior)
    point = _centred(start, k)[0].tolist()
    draws = np.array([point])
    if comparisons and samples:
        weights = resample_counts(seed, len(comparisons), samples)
        draws = np.sort(_centred(design.fit(weights, prior, start[0]), k), axis=0)
    tail = (1.0 - level) / 2
    won = np.bincount(design.first, design.outcome, k) + np.bincount(design.second, 1.0 - design.outcome, k)
    played = np.bincount(design.first, minlength=k) + np.bincount(design.second, minlength=k)
    order = sorted(range(k), key=lambda i: (-round(point[i], 9), items[i]))
    return [
        Strength(
            item=items[i],
            strength=point[i],
            low=percentile(draws[:, i].tolist(), tail),
            high=percentile(draws[:, i].tolist(), 1.0 - tail),
            rank=rank,
            wins=float(won[i]),
            matches=int(played[i]),
        )
        for rank, i in enumerate(order, start=1)
    ]
