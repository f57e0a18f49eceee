"""The judging statistics against hand computations and known answers."""

from __future__ import annotations

import math
import random

import pytest

from mixseek.stats.agreement import krippendorff_alpha_interval, spread
from mixseek.stats.bradley_terry import Comparison, bradley_terry, fit_strengths
from mixseek.stats.calibration import calibrate, pearson, spearman
from mixseek.stats.resampling import bootstrap_mean_ci, percentile
from mixseek.stats.significance import sign_test


def test_alpha_matches_a_hand_computation_with_a_missing_rating() -> None:
    # pairable values 1, 3, 2, 2 (the unit with one rating drops out): n = 4
    # D_o = ((1-3)^2 + (3-1)^2) / (2 - 1) / 4 = 2; D_e = 16 / (4 * 3) = 4/3; alpha = 1 - 2 / (4/3)
    assert krippendorff_alpha_interval([[1, 3], [2, 2], [5, None]]) == pytest.approx(-0.5)


def test_alpha_with_three_judges_matches_a_hand_computation() -> None:
    # n = 5; D_o = (1200 / 2 + 200 / 1) / 5 = 160; D_e = 2 * 5 * 1720 / 20 = 860 -> 1 - 160/860 = 35/43
    assert krippendorff_alpha_interval([[10, 20, 30], [50, 60, None]]) == pytest.approx(35 / 43)


def test_alpha_is_one_for_perfect_agreement_and_undefined_without_variation() -> None:
    assert krippendorff_alpha_interval([[1, 1], [5, 5, 5]]) == 1.0
    assert krippendorff_alpha_interval([[4, 4], [4, 4]]) is None
    assert krippendorff_alpha_interval([[4, 7]]) is None  # one pairable unit
    assert krippendorff_alpha_interval([]) is None


def test_alpha_falls_as_judges_add_noise() -> None:
    rng = random.Random(7)
    truth = [rng.uniform(0, 100) for _ in range(200)]
    quiet = krippendorff_alpha_interval([[t + rng.gauss(0, 2), t + rng.gauss(0, 2)] for t in truth])
    noisy = krippendorff_alpha_interval([[t + rng.gauss(0, 30), t + rng.gauss(0, 30)] for t in truth])
    assert quiet is not None and noisy is not None
    assert quiet > 0.98 > 0.7 > noisy


def test_spread() -> None:
    assert spread([70, 90, 75]) == 20
    assert spread([]) == 0.0


def test_bradley_terry_two_items_is_the_win_ratio() -> None:
    games = [Comparison("a", "b", 1.0)] * 3 + [Comparison("b", "a", 1.0)]
    strengths = fit_strengths(["a", "b"], games, prior=1e-6)
    assert strengths["a"] - strengths["b"] == pytest.approx(math.log(3), abs=1e-3)
    assert strengths["a"] + strengths["b"] == pytest.approx(0.0)


def test_a_tie_counts_half_a_win_each() -> None:
    games = [Comparison("a", "b", 0.5), Comparison("a", "b", 1.0)]  # a: 1.5 wins of 2
    strengths = fit_strengths(["a", "b"], games, prior=1e-6)
    assert strengths["a"] - strengths["b"] == pytest.approx(math.log(3), abs=1e-3)


def test_bradley_terry_recovers_a_known_ordering_with_intervals() -> None:
    truth = {"t1": 2.0, "t2": 1.0, "t3": 0.0, "t4": -1.0, "t5": -2.0}
    rng = random.Random(11)
    games = []
    names = list(truth)
    for _ in range(60):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                p_a = 1 / (1 + math.exp(truth[b] - truth[a]))
                games.append(Comparison(a, b, 1.0 if rng.random() < p_a else 0.0))
    ranking = bradley_terry(names, games, samples=200, seed=3)
    assert [s.item for s in ranking] == names
    assert [s.rank for s in ranking] == [1, 2, 3, 4, 5]
    for s in ranking:
        assert s.low <= s.strength <= s.high
        assert s.matches == 240
        assert abs(s.strength - truth[s.item]) < 0.4  # centred truth has mean 0 too
    # the strongest and the weakest are told apart with confidence
    assert ranking[0].low > ranking[-1].high


def test_bradley_terry_is_finite_for_a_team_that_always_loses_and_for_one_never_compared() -> None:
    games = [Comparison("a", "b", 1.0), Comparison("a", "b", 1.0)]
    ranking = bradley_terry(["a", "b", "c"], games, samples=50)
    by_item = {s.item: s for s in ranking}
    assert all(math.isfinite(s.strength) for s in ranking)
    assert by_item["a"].strength > by_item["c"].strength > by_item["b"].strength
    assert by_item["c"].matches == 0


def test_bradley_terry_is_reproducible_for_a_seed() -> None:
    games = [Comparison("a", "b", 1.0), Comparison("b", "c", 0.5), Comparison("c", "a", 0.0)]
    assert bradley_terry(["a", "b", "c"], games, seed=5) == bradley_terry(["a", "b", "c"], games, seed=5)


def test_comparisons_refuse_bad_outcomes() -> None:
    with pytest.raises(ValueError, match=r"outcome must be 0, 0\.5 or 1"):
        Comparison("a", "b", 0.7)
    with pytest.raises(ValueError, match="compared with itself"):
        Comparison("a", "a", 1.0)


def test_sign_test_matches_the_binomial_tail() -> None:
    assert sign_test(9, 1) == pytest.approx(22 / 1024)
    assert sign_test(1, 9) == pytest.approx(22 / 1024)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0
    assert sign_test(6, 0) == pytest.approx(2 / 64)


def test_bootstrap_interval_and_percentile() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([5], 0.9) == 5
    low, high = bootstrap_mean_ci([10, 12, 14, 16, 18] * 4, samples=500, seed=1)
    assert low < 14 < high
    assert bootstrap_mean_ci([7, 7, 7]) == (7, 7)


def test_calibration_statistics() -> None:
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    # ranks with a tie: x -> 1, 2.5, 2.5, 4; y -> 1, 2, 3, 4
    assert spearman([10, 20, 20, 30], [1, 2, 3, 4]) == pytest.approx(pearson([1, 2.5, 2.5, 4], [1, 2, 3, 4]))
    result = calibrate([80, 60, 90], [70, 60, 70])
    assert result.pairs == 3
    assert result.mae == pytest.approx(10.0)
    assert result.bias == pytest.approx(10.0)
    with pytest.raises(ValueError, match="3 scores against 2"):
        calibrate([1, 2, 3], [1, 2])
