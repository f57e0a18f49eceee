"""Judge-bias rates and the Wilson interval, against hand computations."""

from __future__ import annotations

import pytest

from mixseek.stats.judge_bias import flip_rate, pooled, rate, wilson, won_by


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # z = 1.96: q = z²/n; centre (p + q/2)/(1 + q); half z·sqrt(p(1-p)/n + q/4n)/(1 + q)
        (0, 10, 0.0, 0.277533),
        (5, 10, 0.236593, 0.763407),
        (10, 10, 0.722467, 1.0),
        (3, 4, 0.300642, 0.954413),
        (1, 1, 0.206549, 1.0),
    ],
)
def test_wilson_interval_matches_hand_values(k: int, n: int, low: float, high: float) -> None:
    assert wilson(k, n) == pytest.approx((low, high), abs=1e-6)


def test_an_empty_count_has_no_rate() -> None:
    assert rate(0, 0).rate is None and wilson(0, 0) == (0.0, 1.0)
    assert rate(0, 0).text() == "0 of 0"
    assert rate(2, 3).text() == "2 of 3 (67%, 95% CI 21%–94%)"


def test_flip_rate_undoes_the_order() -> None:
    # (a first, b first): A/B and B/A and tie/tie agree; A/A, B/B, A/tie flip
    got = flip_rate([("A", "B"), ("B", "A"), ("tie", "tie"), ("A", "A"), ("B", "B"), ("A", "tie")])
    assert (got.k, got.n, got.rate) == (3, 6, 0.5)


def test_won_by_counts_decisive_matches_where_one_side_has_the_trait() -> None:
    matches = [
        (1.0, True, False),  # a has it and won
        (0.0, True, False),  # a has it and lost
        (0.0, False, True),  # b has it and won
        (0.5, True, False),  # a tie: left out
        (1.0, True, True),  # both have it: left out
    ]
    got = won_by(matches)
    assert (got.k, got.n) == (2, 3)


def test_pooled_adds_the_counts() -> None:
    assert pooled([rate(1, 4), rate(2, 6)]) == rate(3, 10)
    assert pooled([]) == rate(0, 0)
