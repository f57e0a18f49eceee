"""Style covariates of a pairwise comparison, as Chatbot Arena's style control: how much longer, and how
much more Markdown structure, the first submission has than the second, for Bradley–Terry to remove."""

from __future__ import annotations

import re
from collections.abc import Iterable

# a header, a list item (at a line's start) or a bold delimiter
_MARKDOWN = re.compile(r"^ {0,3}(?:#{1,6} |[-*+] |\d+[.)] )|\*\*|__", re.MULTILINE)


def style_features(text: str) -> tuple[int, int]:
    """Its length in characters and its Markdown structure: headers, list items and bold spans."""
    marks = _MARKDOWN.findall(text)
    bold = sum(1 for m in marks if m in ("**", "__"))
    return len(text), len(marks) - bold + bold // 2


def _difference(a: float, b: float) -> float:
    return (a - b) / (a + b) if a + b else 0.0


def style_covariates(pairs: Iterable[tuple[str, str]]) -> list[list[float]]:
    """A row per (first, second) pair of texts: the differences (a - b) / (a + b) of length and Markdown."""
    rows = []
    for first, second in pairs:
        rows.append(
            [_difference(a, b) for a, b in zip(style_features(first), style_features(second), strict=True)]
        )
    return rows
