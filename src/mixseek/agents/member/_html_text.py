"""HTML → what a reader sees, for the web-fetch tool (`html_to_text`): a block per line, lists and table rows
kept readable, no scripts, styles or `<head>`. On the standard tokenizer: the extraction libraries tried
dropped headlines, lists or columns, or were GPL or a 22 MB native module. `sniff_charset`: a document's
declared encoding."""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

from w3lib.encoding import html_body_declared_encoding, resolve_encoding

# Elements whose whole content is not readable text.
_SKIP = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "select"}
    | {"datalist"}
)

# Elements that may appear in <head>; any other start tag implicitly ends it (as browsers do).
_HEAD_CONTENT = frozenset(
    {"title", "meta", "link", "style", "script", "base", "noscript", "template", "object"}
)

# Separated from the surrounding text by a blank line.
_PARAGRAPH = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "ul", "ol", "dl", "figure"}
    | {"hr", "form", "fieldset"}
)

# Start and end on a line of their own.
_BLOCK = frozenset(
    {"address", "article", "aside", "body", "br", "caption", "dd", "details", "dialog", "div", "dt"}
    | {"figcaption", "footer", "header", "hgroup", "html", "legend", "li", "main", "nav", "option"}
    | {"section", "summary", "tbody", "td", "tfoot", "th", "thead", "tr"}
)

_WHITESPACE = re.compile(r"\s+")


class _TextBuilder:
    """Accumulates text in lines, collapsing whitespace and deferring line breaks."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._line: list[str] = []
        self._pending_breaks = 0  # 1 = new line, 2 = blank line, before the next text
        self._pending_space = False
        self._holding = False  # ignore break requests until the next text (see `hold_breaks`)

    def request_break(self, kind: int) -> None:
        if self._holding:
            return
        self._pending_breaks = max(self._pending_breaks, kind)
        self._pending_space = False

    def hold_breaks(self) -> None:
        """Keep the next text on this line (a list item's or cell's wrapping `<p>` must not move it away)."""
        self._holding = True

    def drop_breaks(self) -> None:
        """Forget the breaks requested since the last text (the end of a table cell)."""
        self._pending_breaks = 0

    def _flush_breaks(self) -> None:
        if self._pending_breaks and (self._lines or self._line):
            self._end_line()
            if self._pending_breaks >= 2 and self._lines and self._lines[-1]:
                self._lines.append("")
        self._pending_breaks = 0

    def _end_line(self) -> None:
        self._lines.append("".join(self._line).rstrip())
        self._line = []
        self._pending_space = False

    def add_text(self, data: str) -> None:
        collapsed = _WHITESPACE.sub(" ", data)
        words = collapsed.strip(" ")
        if not words:
            if collapsed and self._line:
                self._pending_space = True
            return
        self._flush_breaks()
        self._holding = False
        if self._line and (self._pending_space or collapsed.startswith(" ")):
            self._line.append(" ")
        self._line.append(words)
        self._pending_space = collapsed.endswith(" ")

    def add_raw(self, data: str) -> None:
        """Add text verbatim (for `<pre>`), keeping its line breaks."""
        if not data:
            return
        self._flush_breaks()
        self._holding = False
        if self._pending_space and self._line:
            self._line.append(" ")
            self._pending_space = False
        parts = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for i, part in enumerate(parts):
            if i:
                self._end_line()
            self._line.append(part.expandtabs(4))

    def add_marker(self, marker: str) -> None:
        """Start a line with a marker such as `- ` (after pending breaks); its text follows."""
        if self._holding and self._line:  # an item with no text of its own before a nested list
            self._end_line()
        self._flush_breaks()
        self._line.append(marker)
        self._pending_space = False
        self._holding = True

    def text(self) -> str:
        lines = [*self._lines, "".join(self._line).rstrip()]
        # Drop leading/trailing blank lines and never keep two blank lines in a row.
        out: list[str] = []
        for line in lines:
            if not line.strip():
                if out and out[-1] != "":
                    out.append("")
                continue
            out.append(line)
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out)


class _ReadableTextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = _TextBuilder()
        self.title: str | None = None
        self._title_parts: list[str] | None = None
        self._skip_stack: list[str] = []
        self._in_head = False
        self._pre_depth = 0
        self._cell_in_row = 0
        # one entry per open <ul> (None) or <ol> (the number of its next item)
        self._lists: list[int | None] = []

    # -- tags -----------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip_stack:
            if tag == self._skip_stack[-1] or tag in _SKIP:
                self._skip_stack.append(tag)
            return
        if tag == "head":
            self._in_head = True
            return
        if self._in_head and tag not in _HEAD_CONTENT:
            self._in_head = False
        if tag == "title":
            if self.title is None and self._title_parts is None:
                self._title_parts = []
            return
        if tag in _SKIP:
            self._skip_stack.append(tag)
            return
        if self._in_head:
            return
        self._open_block(tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # `<br/>`, `<hr/>`, `<img/>`: a self-closing tag never opens a skipped region.
        if self._skip_stack or self._in_head:
            return
        if tag in _PARAGRAPH or tag in _BLOCK:
            self.out.request_break(2 if tag in _PARAGRAPH else 1)

    def handle_endtag(self, tag: str) -> None:
        if self._skip_stack:
            if tag in self._skip_stack:
                while self._skip_stack.pop() != tag:
                    pass
            elif tag in ("body", "html"):
                self._skip_stack.clear()
            return
        if tag == "head":
            self._in_head = False
            return
        if tag == "title":
            self._finish_title()
            return
        if self._in_head:
            return
        if tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
        if tag == "tr":
            self._cell_in_row = 0
        if tag in ("td", "th"):
            self.out.drop_breaks()
        elif tag in ("ul", "ol"):
            if self._lists:
                self._lists.pop()
            self.out.request_break(1 if self._lists else 2)
        elif tag in _PARAGRAPH:
            self.out.request_break(2)
        elif tag in _BLOCK:
            self.out.request_break(1)

    def _open_block(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th"):
            # Cells of one row stay on one line, separated by " | ".
            if self._cell_in_row:
                self.out.add_text(" | ")
            self._cell_in_row += 1
            self.out.hold_breaks()
            return
        if tag == "tr":
            self._cell_in_row = 0
        if tag == "pre":
            self._pre_depth += 1
        if tag in ("ul", "ol"):
            self.out.request_break(1 if self._lists else 2)  # a nested list stays with its item
            self._lists.append(_list_start(attrs) if tag == "ol" else None)
        elif tag in _PARAGRAPH:
            self.out.request_break(2)
        elif tag in _BLOCK:
            self.out.request_break(1)
        if tag == "li":
            self.out.add_marker(self._next_marker())

    def _next_marker(self) -> str:
        if not self._lists:
            return "- "
        indent = "  " * (len(self._lists) - 1)
        number = self._lists[-1]
        if number is None:
            return indent + "- "
        self._lists[-1] = number + 1
        return f"{indent}{number}. "

    # -- text -----------------------------------------------------------------

    def handle_data(self, data: str) -> None:
        if self._title_parts is not None:
            self._title_parts.append(data)
            return
        if self._skip_stack:
            return
        if self._in_head:
            if not data.strip():
                return
            self._in_head = False  # stray text ends <head>, as in browsers
        if self._pre_depth:
            self.out.add_raw(data)
        else:
            self.out.add_text(data)

    def _finish_title(self) -> None:
        if self._title_parts is not None:
            title = _WHITESPACE.sub(" ", "".join(self._title_parts)).strip()
            self.title = title or None
            self._title_parts = None

    def close(self) -> None:
        super().close()
        self._finish_title()  # the document may be cut inside <title>


def _list_start(attrs: list[tuple[str, str | None]]) -> int:
    """The number of an `<ol>`'s first item (its `start` attribute, else 1)."""
    start = dict(attrs).get("start")
    try:
        return int(start.strip()) if start else 1
    except ValueError:
        return 1


def html_to_text(html: str) -> tuple[str | None, str]:
    """Return `(title, readable text)` of an HTML document (which may be cut short)."""
    parser = _ReadableTextParser()
    parser.feed(html)
    parser.close()
    return parser.title, parser.out.text()


# -- charset ------------------------------------------------------------------

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def normalize_charset(label: str | None) -> str | None:
    """The Python codec for a charset label as browsers read it, or None if unknown (or UTF-7)."""
    if not label:
        return None
    name = label.strip().strip("\"'")
    return resolve_encoding(name) if name else None


def sniff_charset(data: bytes, *, html: bool) -> str | None:
    """The charset a document declares in its first bytes: a BOM, the XML declaration, or an HTML `<meta>`."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    head = data[:4096]
    if not html:  # XML: only a declaration at the very start counts
        end = head.find(b"?>")
        head = head[: end + 2] if head.lstrip().startswith(b"<?xml") and end != -1 else b""
    return html_body_declared_encoding(head) if head else None
