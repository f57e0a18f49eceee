"""Style covariates, checked by hand: lengths and Markdown marks, as normalised differences."""

from __future__ import annotations

import pytest

from mixseek.stats.style_control import style_covariates, style_features


def test_features_count_characters_headers_list_items_and_bold_spans() -> None:
    text = "# Title\n- one\n* two\n1. three\n**bold** and __more__\nnot # a header, not - a list"
    assert style_features(text) == (len(text), 6)  # a header, three list items, two bold spans
    assert style_features("plain words") == (11, 0)
    assert style_features("") == (0, 0)


def test_covariates_are_normalised_differences_first_minus_second() -> None:
    assert style_covariates([("aaa", "a")]) == [[pytest.approx(0.5), 0.0]]  # (3 - 1) / (3 + 1)
    assert style_covariates([("a", "## h\n- x")]) == [[pytest.approx(-7 / 9), -1.0]]
    assert style_covariates([("", "")]) == [[0.0, 0.0]]
