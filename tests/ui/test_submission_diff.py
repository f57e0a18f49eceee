"""`mixseek.report.diff.diff_texts`: what changed between two rounds' submissions, as escaped HTML
with classes only."""

from __future__ import annotations

import re

from mixseek.report.diff import diff_texts


def rows(html: str) -> list[tuple[str, str]]:
    """(row class, text cell) of each row, text cell with its markup."""
    return [
        (kind, cells[-1])
        for kind, body in re.findall(r'<tr class="diff-(\w+)">(.*?)</tr>', html)
        for cells in [re.findall(r"<td[^>]*>(.*?)</td>", body)]
    ]


def test_an_edited_line_shows_its_changed_words() -> None:
    diff = diff_texts("The quick brown fox\nsame\n", "The slow brown fox\nsame\n")
    assert (diff.added, diff.removed, diff.unchanged) == (1, 1, False)
    assert rows(diff.html) == [
        ("hunk", "@@ -1,2 +1,2 @@"),
        ("removed", "The <del>quick</del> brown fox"),
        ("added", "The <ins>slow</ins> brown fox"),
        ("context", "same"),
    ]


def test_long_unchanged_stretches_collapse_into_hunks() -> None:
    old = "\n".join(f"line {n}" for n in range(1, 21))
    new = old.replace("line 2\n", "line 2\nnew line\n").replace("line 19", "line nineteen")
    diff = diff_texts(old, new)
    assert (diff.added, diff.removed) == (2, 1)
    kinds = [kind for kind, _ in rows(diff.html)]
    assert kinds == [
        "hunk", "context", "context", "added", "context", "context", "context",
        "hunk", "context", "context", "context", "removed", "added", "context",
    ]  # fmt: skip
    hunks = [text for kind, text in rows(diff.html) if kind == "hunk"]
    assert hunks == ["@@ -1,5 +1,6 @@", "@@ -16,5 +17,5 @@"]
    # line numbers of the old and the new text
    assert '<td class="diff-num">19</td><td class="diff-num"></td><td class="diff-sign">-</td>' in diff.html
    assert '<td class="diff-num"></td><td class="diff-num">20</td><td class="diff-sign">+</td>' in diff.html


def test_unlike_lines_are_whole_lines_removed_and_added() -> None:
    diff = diff_texts("alpha beta gamma", "completely different words")
    assert rows(diff.html)[1:] == [("removed", "alpha beta gamma"), ("added", "completely different words")]


def test_text_is_escaped_and_control_characters_stripped() -> None:
    diff = diff_texts("", '<script>window.__xss=1</script> "q" \x1b[2J\u202e')
    assert rows(diff.html) == [
        ("hunk", "@@ -0,0 +1,1 @@"),
        ("added", "&lt;script&gt;window.__xss=1&lt;/script&gt; &#34;q&#34; "),
    ]
    assert "style=" not in diff.html


def test_no_change_says_so() -> None:
    diff = diff_texts("same\ntext", "same\ntext")
    assert diff.unchanged
    assert str(diff.html) == '<p class="diff-none">No changes.</p>'
