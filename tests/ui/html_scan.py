"""What a served page's HTML holds, parsed the way a browser tokenises it (`html.parser`): the
elements and attributes that could run script, and the text a reader sees."""

from __future__ import annotations

import re
from html.parser import HTMLParser

PACKAGE_SCRIPTS = ("/static/vendor/htmx.min.js", "/static/vendor/htmx-ext-sse.min.js", "/static/live.js")
"""The only scripts a page may load: the vendored htmx and its SSE extension, and the dashboard's
own (what a failed live stream says in the console)."""
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcdoc"})
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]")


class ScannedPage(HTMLParser):
    """Feed it a page; then `problems` lists what could run a script and `text` is its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.chunks: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._in_script = False

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags.append((tag, values))
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag}> has an event handler attribute {name}={value!r}")
            plain = _IGNORED_IN_URL.sub("", value or "").lower()
            if name in URL_ATTRIBUTES and plain.startswith(("javascript:", "vbscript:")):
                self.problems.append(f"<{tag}> {name}={value!r}")
        if tag == "script":
            self._in_script = True
            src = values.get("src") or ""
            if src not in PACKAGE_SCRIPTS:
                self.problems.append(f"<script> not the package's: src={src!r}")
        if tag in ("iframe", "object", "embed", "base"):
            self.problems.append(f"<{tag}> element")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            if data.strip():
                self.problems.append(f"inline script: {data.strip()[:80]!r}")
            return
        self.chunks.append(data)


def scan(html: str) -> ScannedPage:
    page = ScannedPage()
    page.feed(html)
    page.close()
    return page
