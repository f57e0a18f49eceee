"""Model-written (untrusted) Markdown as HTML safe in a page, for the dashboard and HTML report: markdown-it
with raw HTML off, then nh3's short allowlist (no script, handler or style); links only http(s), mailto and
relative (`rel="noopener noreferrer nofollow"`), images only `data:` and relative, as the CSP loads anyway
(another becomes a link or its alt text); control characters and bidi overrides stripped first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

from mixseek.text_safety import strip_controls

LINK_SCHEMES = frozenset({"http", "https", "mailto"})
IMAGE_DATA = re.compile(r"^data:image/(?:png|gif|jpeg|webp)[;,]", re.I)
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.I)
# what browsers ignore in a URL (so "java\tscript:" is "javascript:")
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]")
_ALIGN = re.compile(r"^text-align:(left|right|center)$")

TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del", "code",
        "pre", "blockquote", "ul", "ol", "li", "a", "img", "table", "thead", "tbody", "tr", "th", "td",
    }
)  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "ol": {"start"}}
ALIGN_CLASSES = {f"md-align-{side}" for side in ("left", "right", "center")}


def _plain_url(url: str) -> str:
    return _IGNORED_IN_URL.sub("", url)


def _is_relative(url: str) -> bool:
    """A path on the same site: no scheme and no host (`//host/...` is another site)."""
    plain = _plain_url(url)
    return _SCHEME.match(plain) is None and not plain.startswith(("//", "\\\\", "/\\", "\\/"))


def link_allowed(url: str) -> bool:
    """Whether a link may point at `url`: http, https, mailto or a relative address."""
    match = _SCHEME.match(_plain_url(url))
    if match is None:
        return True
    return match.group(1).lower() in LINK_SCHEMES


def image_allowed(url: str) -> bool:
    """Whether an image may load from `url`: a data: image, or a relative source."""
    return IMAGE_DATA.match(_plain_url(url)) is not None or _is_relative(url)


def _alignment_as_class(state: StateCore) -> None:
    """Table cells say their alignment with a class: a `style` attribute breaks the page's CSP."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open"):
            style = token.attrGet("style")
            if style is not None:
                token.attrs.pop("style", None)
                found = _ALIGN.match(str(style))
                if found:
                    token.attrSet("class", f"md-align-{found.group(1)}")


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """An image that may load is shown; another one becomes a link to it (or just its alt text)."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    if image_allowed(src):
        return self.image(tokens, idx, options, env)
    alt = self.renderInlineAsText(token.children or [], options, env)
    if link_allowed(src):
        return f'<a href="{escape(src)}">{escape(alt or src)}</a>'
    return str(escape(alt))


def _make_parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    parser.core.ruler.push("mixseek_table_alignment", _alignment_as_class)
    parser.add_render_rule("image", _image)
    return parser


_PARSER = _make_parser()


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if tag == "a" and attribute == "href":
        return value if link_allowed(value) else None
    if tag == "img" and attribute == "src":
        return value if image_allowed(value) else None
    return value


def sanitize_html(html: str) -> str:
    """`html` with only the allowlisted tags and attributes, and only allowed link and image URLs."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_filter_attribute,
        link_rel="noopener noreferrer nofollow",
        url_schemes=set(LINK_SCHEMES) | {"data"},
        allowed_classes={"th": set(ALIGN_CLASSES), "td": set(ALIGN_CLASSES)},
        strip_comments=True,
    )


def render_markdown(text: str) -> Markup:
    """Model-written Markdown as sanitised HTML, ready for a template (it is not escaped again)."""
    env: dict[str, Any] = {}
    html = _PARSER.render(strip_controls(text), env)
    return Markup(sanitize_html(html))
