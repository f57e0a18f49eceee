"""Untrusted text in mixseek's Markdown as plain text in every dialect: `inline` (`&`, `<` as references;
`\\`, `` ` ``, `[`, `]` escaped: no tag, link or code span), `table`/`cell` (also no controls, `>` escaped,
`*`, `_`, `|`, `~` escaped, line breaks as `<br>`), `code_block` (indented: verbatim everywhere)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from mixseek.text_safety import strip_controls

_BACKSLASHED = re.compile(r"([\\`\[\]])")
_IN_CELL = re.compile(r"([\\`*_\[\]|~])")
_BACKTICKS = re.compile(r"`+")
INDENT = "    "


class Trusted(str):
    """Markdown mixseek wrote itself (figures, intervals): a table writes it as it is."""

    __slots__ = ()


def inline(value: object) -> str:
    """`value` as Markdown text that renders as itself: no HTML, link, image or code span."""
    text = "" if value is None else str(value)
    return _BACKSLASHED.sub(r"\\\1", text.replace("&", "&amp;").replace("<", "&lt;"))


def cell(value: object) -> str:
    """`value` as inert text in a table cell, on the row's one line (a `Trusted` value as it is)."""
    if isinstance(value, Trusted):
        return value
    text = "" if value is None else strip_controls(str(value))
    return _IN_CELL.sub(r"\\\1", html.escape(text, quote=False)).replace("\n", "<br>")


def table(headers: Sequence[object], rows: Sequence[Sequence[object]], rule: Sequence[str] = ()) -> list[str]:
    """A Markdown table, every header and cell written by `cell`; `rule` aligns columns (`---:`)."""
    lines = [
        "| " + " | ".join(cell(v) for v in headers) + " |",
        "|" + "|".join(rule or ["---"] * len(headers)) + "|",
    ]
    return lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]


def code_block(content: str) -> str:
    """`content` as an indented code block (outer blank lines dropped, inner ones kept; empty: said so)."""
    lines = content.strip("\n").split("\n")
    if not any(line.strip() for line in lines):
        return "(empty)"
    return "\n".join(INDENT + line if line.strip() else "" for line in lines)


def code_span(value: str) -> str:
    """`value` (one line) as a code span whose backtick run is longer than any inside it."""
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    ticks = "`" * (longest + 1)
    padded = f" {value} " if value.startswith("`") or value.endswith("`") else value
    return f"{ticks}{padded}{ticks}"
