"""`mixseek.report.markdown.render_markdown`: model-written Markdown becomes HTML that carries no
script, no event handler, no style and no dangerous URL, and keeps what a reader wants."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from mixseek.report.markdown import render_markdown, sanitize_html


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("<script>window.__xss=1</script>", "<p>&lt;script&gt;window.__xss=1&lt;/script&gt;</p>\n"),
        ('<img src=x onerror="window.__xss=1">', '<p>&lt;img src=x onerror="window.__xss=1"&gt;</p>\n'),
        ("[click](javascript:window.__xss=1)", "<p>[click](javascript:window.__xss=1)</p>\n"),
        (
            '<a href="javascript:window.__xss=1">x</a>',
            '<p>&lt;a href="javascript:window.__xss=1"&gt;x&lt;/a&gt;</p>\n',
        ),
        ('"><svg onload=window.__xss=1>', '<p>"&gt;&lt;svg onload=window.__xss=1&gt;</p>\n'),
        (
            "[x](data:text/html,<script>1</script>)",
            "<p>[x](data:text/html,&lt;script&gt;1&lt;/script&gt;)</p>\n",
        ),
        ("[x](vbscript:msgbox)", "<p>[x](vbscript:msgbox)</p>\n"),
        ("<!-- hidden --> text", "<p>&lt;!-- hidden --&gt; text</p>\n"),
    ],
)
def test_payloads_are_text(text: str, html: str) -> None:
    rendered = render_markdown(text)
    assert isinstance(rendered, Markup)
    assert str(rendered) == html


def test_links_keep_safe_targets_and_open_nothing_about_the_page() -> None:
    html = str(
        render_markdown("[a](https://example.org/x?y=1) [b](mailto:me@example.org) [c](../rel) [d](#top)")
    )
    rel = 'rel="noopener noreferrer nofollow"'
    assert html == (
        f'<p><a href="https://example.org/x?y=1" {rel}>a</a> <a href="mailto:me@example.org" {rel}>b</a> '
        f'<a href="../rel" {rel}>c</a> <a href="#top" {rel}>d</a></p>\n'
    )


def test_images_load_only_from_data_or_this_site() -> None:
    html = str(render_markdown("![dot](data:image/png;base64,iVBO) ![logo](/static/logo.png)"))
    assert (
        html
        == '<p><img src="data:image/png;base64,iVBO" alt="dot"> <img src="/static/logo.png" alt="logo"></p>\n'
    )


def test_a_remote_image_becomes_a_link_and_a_forbidden_one_its_alt_text() -> None:
    remote = str(render_markdown("![chart](https://example.org/c.png) ![far](//example.org/c.png)"))
    assert remote == (
        '<p><a href="https://example.org/c.png" rel="noopener noreferrer nofollow">chart</a> '
        '<a href="//example.org/c.png" rel="noopener noreferrer nofollow">far</a></p>\n'
    )
    assert "<img" not in str(render_markdown("![svg](data:image/svg+xml;base64,PHN2Zz4=)"))


def test_tables_say_their_alignment_with_classes_not_styles() -> None:
    html = str(render_markdown("| a | b |\n|--:|:-:|\n| 1 | 2 |"))
    assert "style" not in html
    assert '<th class="md-align-right">a</th>' in html
    assert '<td class="md-align-center">2</td>' in html


def test_markdown_structure_survives() -> None:
    html = str(render_markdown("# Title\n\n- **one**\n- ~~two~~\n\n```py\nx = 1 < 2\n```\n\n> quote"))
    assert html == (
        "<h1>Title</h1>\n<ul>\n<li><strong>one</strong></li>\n<li><s>two</s></li>\n</ul>\n"
        "<pre><code>x = 1 &lt; 2\n</code></pre>\n<blockquote>\n<p>quote</p>\n</blockquote>\n"
    )


def test_control_characters_and_bidi_overrides_are_stripped() -> None:
    assert str(render_markdown("red\x1b[31mtext\u202eevil\x07")) == "<p>redtextevil</p>\n"


def test_the_sanitizer_alone_drops_what_a_renderer_might_let_through() -> None:
    html = sanitize_html(
        '<p onclick="x" style="color:red">a</p><a href="javascript:x">b</a><a href="java\tscript:x">c</a>'
        '<img src="data:text/html,x"><img src="https://example.org/i.png"><script>x</script>'
        '<iframe src="/"></iframe><svg onload="x"></svg><a href="data:text/html,x">d</a>'
    )
    assert html == (
        '<p>a</p><a rel="noopener noreferrer nofollow">b</a><a rel="noopener noreferrer nofollow">c</a>'
        '<img><img><a rel="noopener noreferrer nofollow">d</a>'
    )
