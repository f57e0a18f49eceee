"""The paired permutation test checked against sign flips enumerated by hand."""

from __future__ import annotations

import pytest

from mixseek.stats.significance import paired_permutation_test, sign_test


@pytest.mark.parametrize(
    ("differences", "p"),
    [
        # 8 sign patterns of (1, 2, 3): only +++ and --- reach |6|
        ([1.0, 2.0, 3.0], 2 / 8),
        # (3, -1, 2) sums to 4; of ±3±1±2 = 6, 4, 2, 0, 0, -2, -4, -6 four reach |4|
        ([3.0, -1.0, 2.0], 4 / 8),
        # a zero difference doubles every pattern and changes nothing
        ([0.0, 1.0, 2.0, 3.0], 2 / 8),
        # (4, 2, -1, 3) sums to 8 of at most 10: only the observed signs and all-positive, and their mirrors
        ([4.0, 2.0, -1.0, 3.0], 4 / 16),
        ([-12.0] * 6, 2 / 64),
        ([1.0, -1.0], 1.0),
        ([], 1.0),
        ([0.0, 0.0], 1.0),
    ],
)
def test_exact_p_values_match_hand_enumeration(differences: list[float], p: float) -> None:
    assert paired_permutation_test(differences) == pytest.approx(p, abs=1e-12)


def test_magnitudes_give_power_the_sign_test_lacks() -> None:
    # 3 wins, 1 loss: the sign test says 0.625; the loss is small, so the permutation test says 0.25
    assert sign_test(3, 1) == pytest.approx(0.625)
    assert paired_permutation_test([4.0, 2.0, -1.0, 3.0]) == pytest.approx(0.25)


def test_any_scale_gives_the_same_p() -> None:
    differences = [0.3, -0.1, 0.25, 0.4, 0.05]
    scaled = [d * -1000 for d in differences]
    assert paired_permutation_test(differences) == pytest.approx(paired_permutation_test(scaled))


def test_monte_carlo_above_the_exact_limit_is_seeded_and_near_the_exact_value() -> None:
    differences = [float(i % 7 - 2) for i in range(21)]
    exact = paired_permutation_test(differences)
    sampled = paired_permutation_test(differences, exact_up_to=20)
    assert sampled == paired_permutation_test(differences, exact_up_to=20)
    assert abs(sampled - exact) < 0.015
    assert paired_permutation_test([1.0] * 24) == pytest.approx(2 / 2**24)  # exact up to 24
    assert paired_permutation_test([1.0] * 40) == pytest.approx(1 / 10001)  # no draw reaches it
