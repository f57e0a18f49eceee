"""What the embedded model wrote, cleaned of copies of its instructions and of mid-word cuts. A copy can still
arrive despite `copy_guard` (another split into tokens): `remove_copies` takes out every run of
`MIN_COPY_CHARS` or more characters found in those texts. `end_at_boundary` shortens a text cut at the token
limit to its last sentence or word boundary, marked with `…`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from pydantic_ai.messages import ModelResponsePart, TextPart, ToolCallPart

MIN_COPY_CHARS = 16
"""Characters in common with an instruction text from which a run counts as a copy."""

ELLIPSIS = "…"
SENTENCE_ENDS = frozenset("。．！？!?\n")
"""Characters that end a sentence wherever they stand; "." ends one before a space (not in 3.14)."""
CLAUSE_BREAKS = frozenset("、，,;；:：")
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
_WORD_CHARS = re.compile(r"[\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9\uff10-\uff19]")
_LEFTOVER = re.compile(r"^[\s\W_]*$", re.UNICODE)
_BLANK_RUNS = re.compile(r"[ \t]{2,}|\n{3,}")
MIN_KEPT_SHARE = 0.3
"""A boundary this far into a cut text at least is used; one nearer its start would lose too much."""


@lru_cache(maxsize=32)
def _shingles(texts: tuple[str, ...], size: int) -> frozenset[str]:
    return frozenset(text[i : i + size] for text in texts for i in range(len(text) - size + 1))


def copied_spans(
    text: str, protected: Sequence[str], min_chars: int = MIN_COPY_CHARS
) -> list[tuple[int, int]]:
    """The `[start, end)` runs of `text` of `min_chars` or more characters found in a protected text."""
    if len(text) < min_chars or not protected:
        return []
    shingles = _shingles(tuple(protected), min_chars)
    spans: list[tuple[int, int]] = []
    for start in range(len(text) - min_chars + 1):
        if text[start : start + min_chars] not in shingles:
            continue
        end = start + min_chars
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def remove_copies(text: str, protected: Sequence[str], min_chars: int = MIN_COPY_CHARS) -> str:
    """`text` without its copies of the protected texts; empty when nothing of its own is left."""
    spans = copied_spans(text, protected, min_chars)
    if not spans:
        return text
    kept: list[str] = []
    position = 0
    for start, end in spans:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    cleaned = _BLANK_RUNS.sub(lambda m: "\n\n" if "\n" in m.group(0) else " ", "".join(kept)).strip()
    return "" if _LEFTOVER.match(cleaned) else cleaned


def end_at_boundary(text: str) -> str:
    """A text cut off at the token limit, ended at its last sentence, clause or word boundary (in Japanese,
    after a phrase's closing particles) and `…`."""
    stripped = text.rstrip()
    if not stripped or _ends_sentence(stripped, len(stripped) - 1):
        return stripped
    floor = int(len(stripped) * MIN_KEPT_SHARE)
    for index in range(len(stripped) - 2, floor - 1, -1):
        if _ends_sentence(stripped, index):
            return stripped[: index + 1].rstrip()
    for index in range(len(stripped) - 1, floor - 1, -1):
        char = stripped[index]
        if char in CLAUSE_BREAKS or char.isspace():
            return stripped[:index].rstrip(" ,、，;；:：") + ELLIPSIS
        if _ends_phrase(stripped, index):
            return stripped[: index + 1] + ELLIPSIS
    return stripped + ELLIPSIS


def _ends_sentence(text: str, index: int) -> bool:
    char = text[index]
    if char in SENTENCE_ENDS:
        return True
    if char != ".":
        return False
    after_word = index > 0 and not text[index - 1].isdigit()
    return after_word and (index + 1 == len(text) or text[index + 1].isspace())


def _ends_phrase(text: str, index: int) -> bool:
    """Whether `text[index]` is a hiragana that ends a Japanese phrase: a run of hiragana after a
    kanji/katakana/Latin word, followed by another word (the next phrase begins)."""
    if index + 1 >= len(text) or not _HIRAGANA.match(text[index]):
        return False
    if not _WORD_CHARS.match(text[index + 1]):
        return False
    start = index
    while start > 0 and _HIRAGANA.match(text[start - 1]):
        start -= 1
    return start > 0 and _WORD_CHARS.match(text[start - 1]) is not None


def clean_parts(
    parts: list[ModelResponsePart], protected: Sequence[str], *, cut: bool
) -> tuple[list[ModelResponsePart], int]:
    """`parts` without copies of `protected` (a quoted enum member is a choice, not a copy), the last text
    ended at a boundary when `cut`; and how many texts lost a copy."""
    cleaned: list[ModelResponsePart] = []
    removed = 0
    for index, part in enumerate(parts):
        last = cut and index == len(parts) - 1
        if isinstance(part, TextPart):
            text = remove_copies(part.content, protected)
            removed += text != part.content
            cleaned.append(replace(part, content=end_at_boundary(text) if last and text else text))
        elif isinstance(part, ToolCallPart):
            arguments, count = _clean_value(part.args_as_dict(), protected)
            if last:
                arguments = _end_last_string(arguments)
            removed += count
            cleaned.append(replace(part, args=arguments))
        else:
            cleaned.append(part)
    return cleaned, removed


def _clean_value(value: Any, protected: Sequence[str]) -> tuple[Any, int]:
    if isinstance(value, str):
        if any(f'"{value}"' in text for text in protected):
            return value, 0
        text = remove_copies(value, protected)
        return text, int(text != value)
    if isinstance(value, dict):
        items = {key: _clean_value(item, protected) for key, item in value.items()}
        return {key: item for key, (item, _) in items.items()}, sum(count for _, count in items.values())
    if isinstance(value, list):
        entries = [_clean_value(item, protected) for item in value]
        return [item for item, _ in entries], sum(count for _, count in entries)
    return value, 0


def _end_last_string(value: Any) -> Any:
    """`value` with its last string (in JSON order), the one cut by generation, ended at a boundary."""
    if isinstance(value, str):
        return end_at_boundary(value) if value else value
    if isinstance(value, dict) and value:
        *_, key = value
        return {**value, key: _end_last_string(value[key])}
    if isinstance(value, list) and value:
        return [*value[:-1], _end_last_string(value[-1])]
    return value
