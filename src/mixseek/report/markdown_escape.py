"""Untrusted text written into a Markdown file so that no renderer makes markup of it.

Renderers differ: CommonMark viewers pass raw HTML through unless told not to, some render
`[x](javascript:...)` as a link, and fenced code blocks are plain paragraphs to the original
Markdown.pl and to Python-Markdown without its extension. So model text is written in the two forms
every dialect reads alike:

- inline (`inline`): `&` and `<` as character references, so no tag, comment or autolink can start
  (`>` alone opens nothing and stays readable), and a backslash before `\\`, `` ` ``, `[` and `]`, so
  no link, image, link definition or code span can form and the text reads as it was typed;
- a block (`code_block`): an indented code block, which every dialect shows verbatim, escaped.

Emphasis (`*`, `_`) is left alone: it renders as emphasis, never as anything active, and keeps the
file readable.
"""

from __future__ import annotations

import re

_BACKSLASHED = re.compile(r"([\\`\[\]])")
_BACKTICKS = re.compile(r"`+")
INDENT = "    "


def inline(value: object) -> str:
    """`value` as Markdown text that renders as itself: no HTML, link, image or code span."""
    text = "" if value is None else str(value)
    return _BACKSLASHED.sub(r"\\\1", text.replace("&", "&amp;").replace("<", "&lt;"))


def code_block(content: str) -> str:
    """`content` as an indented code block (every line four spaces in; blank lines stay blank).

    Leading and trailing blank lines are not part of any code block; empty content is said so."""
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
