"""`report.markdown_escape`: untrusted text written into Markdown renders as itself, and as
nothing else, in a CommonMark renderer with raw HTML on and any link target accepted."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from mixseek.report.markdown_escape import Trusted, cell, code_block, code_span, inline, table

HOSTILE = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "<javascript:alert(1)>",
    "[c](javascript:alert(1))",
    "![i](https://tracker.example/p.png)",
    "[e](jav&#x61;script:alert(1))",
    "`x`<b onclick=alert(1)>`",
    "\\<script>alert(1)</script>",
    "\\[c](javascript:alert(1))",
    "&lt;b&gt; &amp; &#60;",
    "a | b \\| c",
]


def permissive() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


def paragraph_text(rendered: str) -> str:
    """The text of `<p>...</p>` holding no element: what a reader sees."""
    match = re.fullmatch(r"<p>([^<]*)</p>\n", rendered)
    assert match, rendered
    return html.unescape(match.group(1))


@pytest.mark.parametrize("text", HOSTILE)
def test_inline_text_renders_as_itself_and_nothing_else(text: str) -> None:
    assert paragraph_text(permissive().render(f"said: {inline(text)}")) == f"said: {text}"


@pytest.mark.parametrize("text", HOSTILE)
def test_a_code_block_shows_its_text_verbatim(text: str) -> None:
    content = f"{text}\n\n  indented {text}\n<div onclick=x>\n"
    rendered = permissive().render(f"Submission:\n\n{code_block(content)}\n\nafter")
    match = re.fullmatch(r"<p>Submission:</p>\n<pre><code>([^<]*)</code></pre>\n<p>after</p>\n", rendered)
    assert match, rendered
    assert html.unescape(match.group(1)) == content


def test_a_code_block_of_nothing_says_so() -> None:
    assert code_block("\n  \n") == "(empty)"
    assert code_block("\na\n\nb\n\n") == "    a\n\n    b"


@pytest.mark.parametrize("value", ["plain-id", "a`b", "``x``"])
def test_a_code_span_holds_any_backticks(value: str) -> None:
    rendered = permissive().render(f"id: {code_span(value)}")
    assert rendered == f"<p>id: <code>{html.escape(value, quote=False)}</code></p>\n"


def test_a_table_cell_keeps_its_text_in_its_cell() -> None:
    row = f"| {cell('<b>x</b> | [y](javascript:z)')} | {cell('two' + chr(10) + 'lines')} |"
    rendered = permissive().render(f"| a | b |\n|---|---|\n{row}\n")
    assert "<td>&lt;b&gt;x&lt;/b&gt; | [y](javascript:z)</td>" in rendered
    assert "<td>two<br>lines</td>" in rendered


TABLE_HOSTILE = [*HOSTILE, "**b** _i_ ~~s~~ *j*", "> quoted\ttab", "a\x1b[2Jb"]


@pytest.mark.parametrize("text", TABLE_HOSTILE)
def test_every_table_header_and_cell_renders_as_itself(text: str) -> None:
    """`table`, the one writer of every Markdown table (runs export, bench, judges calibrate)."""
    rendered = permissive().enable("strikethrough").render("\n".join(table(["h", text], [[text, 1]])))
    cells = re.findall(r"<t([hd])>([^<]*)</t\1>", rendered)
    shown = text.replace("\x1b[2J", "")
    assert [html.unescape(content) for _, content in cells] == ["h", shown, shown, "1"], rendered


def test_a_table_keeps_line_breaks_in_their_cell_and_trusted_figures_as_written() -> None:
    lines = table(["a", "b"], [["two\r\nlines\nthree", Trusted("0.50 [0.25, 0.75]")]], ["---", "---:"])
    assert lines == ["| a | b |", "|---|---:|", "| two<br>lines<br>three | 0.50 [0.25, 0.75] |"]
    assert cell("a|b `c` <i>&") == "a\\|b \\`c\\` &lt;i&gt;&amp;"
