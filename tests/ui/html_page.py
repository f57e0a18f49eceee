"""A page's HTML as a small element tree (the standard library's parser), to assert what it shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    def iter(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str, **attrs: str) -> list[Element]:
        """Descendants (and self) with this tag whose attributes have these values (`class_` for
        class: one of its words)."""
        found = []
        for element in self.iter():
            if element.tag != tag:
                continue
            ok = True
            for name, value in attrs.items():
                if name == "class_":
                    ok = ok and value in element.attrs.get("class", "").split()
                else:
                    ok = ok and element.attrs.get(name.replace("_", "-")) == value
            if ok:
                found.append(element)
        return found

    def find(self, tag: str, **attrs: str) -> Element:
        (found,) = self.find_all(tag, **attrs)
        return found

    def by_id(self, element_id: str) -> Element:
        (found,) = [e for e in self.iter() if e.attrs.get("id") == element_id]
        return found

    @property
    def raw_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.raw_text for c in self.children)

    @property
    def text(self) -> str:
        """The text content, whitespace runs collapsed to one space."""
        return re.sub(r"\s+", " ", self.raw_text).strip()

    def rows(self) -> list[list[str]]:
        """A table's rows (thead and tbody) as the texts of their cells."""
        return [
            [cell.text for cell in row.children if isinstance(cell, Element)] for row in self.find_all("tr")
        ]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
