"""The Newton fit of Bradley–Terry gives the strengths and intervals the replaced minorise–maximise fit gave
(a reference copy here) on random verdicts, draws the same bootstrap samples, and fits covariates."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from mixseek.stats.bradley_terry import Comparison, bradley_terry, fit_strengths, resample_counts
from mixseek.stats.resampling import percentile


def reference_fit(items: Sequence[str], games: Sequence[Comparison], prior: float = 1.0) -> dict[str, float]:
    """Minorise–maximise, as mixseek fitted Bradley–Terry before."""
    wins = dict.fromkeys(items, prior / 2)
    played: dict[tuple[str, str], float] = {}
    for g in games:
        wins[g.first] += g.outcome
        wins[g.second] += 1.0 - g.outcome
        played[g.first, g.second] = played.get((g.first, g.second), 0.0) + 1.0
    p = dict.fromkeys(items, 1.0)
    for _ in range(5000):
        denominator = {i: prior / (p[i] + 1.0) for i in items}
        for (a, b), n in played.items():
            denominator[a] += n / (p[a] + p[b])
            denominator[b] += n / (p[a] + p[b])
        updated = {i: wins[i] / denominator[i] for i in items}
        change = max(abs(math.log(updated[i] / p[i])) for i in items)
        p = updated
        if change < 1e-12:
            break
    centre = sum(math.log(v) for v in p.values()) / len(items)
    return {i: math.log(v) - centre for i, v in p.items()}


def random_games(rng: random.Random, teams: int, rounds: int) -> tuple[list[str], list[Comparison]]:
    names = [f"t{i}" for i in range(teams)]
    truth = {n: rng.gauss(0, 1) for n in names}
    games = []
    for _ in range(rounds):
        for _ in range(teams * 2):
            a, b = rng.sample(names, 2)
            p_a, u = 1 / (1 + math.exp(truth[b] - truth[a])), rng.random()
            games.append(Comparison(a, b, 0.5 if u < 0.15 else 1.0 if u < 0.15 + 0.85 * p_a else 0.0))
    return names, games


@pytest.mark.parametrize("seed", range(6))
def test_strengths_and_intervals_match_the_minorise_maximise_fit(seed: int) -> None:
    rng = random.Random(seed)
    names, games = random_games(rng, rng.randint(2, 9), rng.randint(1, 4))
    prior = rng.choice([1.0, 0.3, 2.0])
    expected = reference_fit(names, games, prior)
    assert fit_strengths(names, games, prior=prior) == pytest.approx(expected, abs=1e-7)
    # the intervals: the same bootstrap samples (random.choices with this seed), each fitted as before
    draw = random.Random(seed)
    samples = [reference_fit(names, draw.choices(games, k=len(games)), prior) for _ in range(30)]
    for s in bradley_terry(names, games, samples=30, seed=seed, prior=prior):
        values = sorted(sample[s.item] for sample in samples)
        assert s.strength == pytest.approx(expected[s.item], abs=1e-7)
        assert (s.low, s.high) == pytest.approx(
            (percentile(values, 0.025), percentile(values, 0.975)), abs=1e-7
        )


def test_resample_counts_are_the_draws_of_random_choices() -> None:
    rng = random.Random(42)
    drawn = [rng.choices(range(7), k=7) for _ in range(4)]
    assert resample_counts(42, 7, 4).tolist() == [[float(row.count(i)) for i in range(7)] for row in drawn]


def test_a_planted_covariate_effect_is_recovered_and_removed() -> None:
    """Equal teams; the first of each pair wins more the larger its covariate: the effect is fitted
    (not put on the teams), and without the covariate the teams with larger values look stronger."""
    rng = random.Random(5)
    names = ["a", "b", "c", "d"]
    size = {"a": 1.0, "b": 0.5, "c": -0.5, "d": -1.0}
    games, rows = [], []
    for _ in range(400):
        x, y = rng.sample(names, 2)
        z = size[x] - size[y]
        games.append(Comparison(x, y, 1.0 if rng.random() < 1 / (1 + math.exp(-1.5 * z)) else 0.0))
        rows.append([z])
    controlled = fit_strengths(names, games, covariates=rows, prior=1e-3)
    plain = fit_strengths(names, games, prior=1e-3)
    assert max(abs(v) for v in controlled.values()) < 0.25
    assert plain["a"] > plain["b"] > plain["c"] > plain["d"]
    assert plain["a"] - plain["d"] > 2.0


def test_a_covariate_that_never_varies_changes_nothing() -> None:
    games = [Comparison("a", "b", 1.0), Comparison("a", "b", 1.0), Comparison("b", "c", 0.5)]
    assert fit_strengths(["a", "b", "c"], games, covariates=[[0.0]] * 3) == pytest.approx(
        fit_strengths(["a", "b", "c"], games), abs=1e-6
    )


def test_hand_checked_two_teams_with_a_length_covariate() -> None:
    """a wins 3 of the 4 games where it is the longer (z = 1) and 2 of the 4 where b is (z = -1):
    sigma(d + beta) = 3/4 and sigma(d - beta) = 1/2, so d = beta = log(3) / 2; plain, a won 5 of 8."""
    outcomes = [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    games = [Comparison("a", "b", o) for o in outcomes]
    rows = [[1.0]] * 4 + [[-1.0]] * 4
    controlled = fit_strengths(["a", "b"], games, covariates=rows, prior=1e-6)
    plain = fit_strengths(["a", "b"], games, prior=1e-6)
    assert controlled["a"] - controlled["b"] == pytest.approx(math.log(3) / 2, abs=1e-4)
    assert plain["a"] - plain["b"] == pytest.approx(math.log(5 / 3), abs=1e-4)


def test_no_comparisons_with_covariates_ranks_no_one_apart() -> None:
    assert [s.strength for s in bradley_terry(["a", "b"], [], covariates=[])] == [0.0, 0.0]


def test_one_row_of_covariates_per_comparison() -> None:
    with pytest.raises(ValueError, match="one row of covariates per comparison"):
        fit_strengths(["a", "b"], [Comparison("a", "b", 1.0)], covariates=[[1.0], [2.0]])
