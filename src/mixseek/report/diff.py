"""A submission's change since the team's previous round as escaped HTML: a `difflib` line diff marking
changed words (`<del>`, `<ins>`), rows with classes only (the CSP forbids inline styles), no controls."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from markupsafe import Markup, escape

from mixseek.text_safety import strip_controls

CONTEXT_LINES = 3
WORD_DIFF_MIN_RATIO = 0.5
"""Below this similarity two lines are different lines, not one line edited: no word highlights."""
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class TextDiff:
    """A diff of two texts: lines added and removed, and the table that shows them."""

    added: int
    removed: int
    html: Markup

    @property
    def unchanged(self) -> bool:
        return self.added == 0 and self.removed == 0


def _range(start: int, stop: int) -> str:
    """A hunk's line range as `diff -u` writes it (an empty range names the line before it)."""
    length = stop - start
    return f"{start if length == 0 else start + 1},{length}"


def _row(kind: str, sign: str, old: int | None, new: int | None, text: Markup) -> str:
    old_no = "" if old is None else str(old)
    new_no = "" if new is None else str(new)
    return (
        f'<tr class="diff-{kind}"><td class="diff-num">{old_no}</td><td class="diff-num">{new_no}</td>'
        f'<td class="diff-sign">{sign}</td><td class="diff-text">{text}</td></tr>'
    )


def _word_diff(old: str, new: str) -> tuple[Markup, Markup] | None:
    """Both lines with their changed words marked, when the lines are alike enough."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < WORD_DIFF_MIN_RATIO:
        return None
    old_parts: list[str] = []
    new_parts: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        removed, added = escape("".join(a[i1:i2])), escape("".join(b[j1:j2]))
        if tag == "equal":
            old_parts.append(removed)
            new_parts.append(added)
            continue
        if removed:
            old_parts.append(f"<del>{removed}</del>")
        if added:
            new_parts.append(f"<ins>{added}</ins>")
    return Markup("".join(old_parts)), Markup("".join(new_parts))


def _replaced(old_lines: list[str], new_lines: list[str], old_start: int, new_start: int) -> list[str]:
    """Rows for a replaced block: old lines, then new; lines at the same place are compared word by word."""
    old_text = [escape(line) for line in old_lines]
    new_text = [escape(line) for line in new_lines]
    for k, (old, new) in enumerate(zip(old_lines, new_lines, strict=False)):
        words = _word_diff(old, new)
        if words is not None:
            old_text[k], new_text[k] = words
    rows = [_row("removed", "-", old_start + k + 1, None, text) for k, text in enumerate(old_text)]
    rows += [_row("added", "+", None, new_start + k + 1, text) for k, text in enumerate(new_text)]
    return rows


def diff_texts(old: str, new: str, *, context: int = CONTEXT_LINES) -> TextDiff:
    """The diff from `old` to `new` (a previous round's submission to this round's)."""
    a = strip_controls(old).splitlines()
    b = strip_controls(new).splitlines()
    if a == b:
        return TextDiff(added=0, removed=0, html=Markup('<p class="diff-none">No changes.</p>'))
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    rows: list[str] = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        header = f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"
        rows.append(f'<tr class="diff-hunk"><td colspan="4">{header}</td></tr>')
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [
                    _row("context", " ", i1 + k + 1, j1 + k + 1, escape(a[i1 + k])) for k in range(i2 - i1)
                ]
                continue
            removed += i2 - i1
            added += j2 - j1
            rows += _replaced(a[i1:i2], b[j1:j2], i1, j1)
    return TextDiff(added=added, removed=removed, html=Markup(f'<table class="diff">{"".join(rows)}</table>'))
