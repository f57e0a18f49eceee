"""`fetch_url` against a real HTTP server on 127.0.0.1 (and, for the SSRF guard, fake resolvers)."""

from __future__ import annotations

import contextlib
import gzip
import ipaddress
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from mixseek.agents.member._html_text import html_to_text
from mixseek.agents.member.web_fetch_tool import (
    FetchResult,
    WebFetchError,
    blocked_address_reason,
    fetch_url,
)
from mixseek.config.member_options import WebFetchOptions

# -- the test server ----------------------------------------------------------

SAMPLE_HTML = """<!DOCTYPE html>
<html lang="fr">
<head>
  <meta charset="windows-1252">
  <title>  Caf\xe9 &amp; Bar \u2014 Menu  </title>
  <style>body { color: red; } p::before { content: "<p>"; }</style>
  <script>var html = "<p>not text</p>"; if (a < b && c > d) {}</script>
  <link rel="stylesheet" href="/x.css">
</head>
<body>
  <noscript>Please enable JavaScript.</noscript>
  <header><nav><a href="/">Home</a> | <a href="/menu">Menu</a></nav></header>
  <h1>Welcome   to the
      <em>Caf&eacute;</em></h1>
  <p>Prices start at 5&nbsp;\u20ac &lt;really&gt; &#8212; see <a href="/menu">our menu</a>.</p>
  <div>Line one<br>Line two<br/>Line three</div>
  <ul>
    <li>Coffee</li>
    <li>Tea <b>(hot)</b></li>
  </ul>
  <table>
    <tr><th>Item</th><th>Price</th></tr>
    <tr><td>Cake</td><td>3 \u20ac</td></tr>
  </table>
  <pre>def f():
    return 1</pre>
  <svg width="10"><title>icon title</title><text>svg text</text></svg>
  <template><p>template text</p></template>
  <p>Caf\xe9 cr\xe8me br\xfbl\xe9e.</p>
  <script type="application/ld+json">{"@type": "Restaurant"}</script>
</body>
</html>
"""

SAMPLE_TEXT = """Home | Menu

Welcome to the Café

Prices start at 5 € <really> — see our menu.

Line one
Line two
Line three

- Coffee
- Tea (hot)

Item | Price
Cake | 3 €

def f():
    return 1

Café crème brûlée."""

JSON_BODY = '{"name": "mixseek", "tags": ["a", "b"], "nested": {"n": 1.5, "s": "caf\\u00e9 <x>"}}\n'
PLAIN_BODY = "Plain text\n  keeps   its spacing & <angle> brackets.\n"
HUGE_SIZE = 5_000_000
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hits: list[str] = []
        self.headers_seen: list[dict[str, str]] = []
        self.connections = 0
        self.stop = threading.Event()
        self.sni_names: list[str | None] = []

    def process_request(self, request: Any, client_address: Any) -> None:
        self.connections += 1
        super().process_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hung up early (timeouts, truncation): expected here


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- helpers --

    def _send(self, status: int, body: bytes, content_type: str | None, **headers: str) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 302) -> None:
        self._send(status, b"moved", "text/plain", Location=location)

    def _origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    # -- routes --

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        self.server.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        path = self.path.split("?", 1)[0]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route(path)

    def _route(self, path: str) -> None:
        if path == "/page.html":
            self._send(200, SAMPLE_HTML.encode("cp1252"), "text/html; charset=windows-1252")
        elif path == "/meta-charset.html":
            body = '<html><head><meta charset="windows-1252"><title>Pr\xe9sent\xe9</title></head>'
            body += "<body><p>Prix : 10 \u20ac</p></body></html>"
            self._send(200, body.encode("cp1252"), "text/html")
        elif path == "/http-equiv.html":
            body = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=shift_jis">'
            body += (
                "<title>\u65e5\u672c\u8a9e</title></head><body>\u3053\u3093\u306b\u3061\u306f</body></html>"
            )
            self._send(200, body.encode("shift_jis"), "text/html")
        elif path == "/windows-31j.html":
            # labelled Shift_JIS, written (as Japanese sites are) with Windows-31J's extra characters
            body = '<html><head><meta charset="Shift_JIS"><title>\u904b\u884c</title></head>'
            body += "<body><p>\u2460 6:00\uff5e24:00</p></body></html>"
            self._send(200, body.encode("cp932"), "text/html")
        elif path == "/header-wins.html":
            body = '<meta charset="windows-1252"><p>\u00e9t\u00e9</p>'
            self._send(200, body.encode("utf-8"), "text/html; charset=utf-8")
        elif path == "/latin1.txt":
            self._send(200, "na\xefve fa\xe7ade".encode("latin-1"), "text/plain; charset=ISO-8859-1")
        elif path == "/bad-utf8.txt":
            self._send(200, b"ok \xff\xfe end", "text/plain")
        elif path == "/utf8-long.txt":
            self._send(200, ("\u00e9" * 1000).encode("utf-8"), "text/plain; charset=utf-8")
        elif path == "/json":
            self._send(200, JSON_BODY.encode("utf-8"), "application/json")
        elif path == "/problem+json":
            self._send(200, b'{"title": "x"}', "application/problem+json")
        elif path == "/feed.xml":
            body = '<?xml version="1.0" encoding="iso-8859-1"?><rss><title>\xe9</title></rss>'
            self._send(200, body.encode("latin-1"), "application/rss+xml")
        elif path == "/xhtml":
            body = '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head><body><p>Hi</p></body></html>'
            self._send(200, body.encode(), "application/xhtml+xml")
        elif path == "/text":
            self._send(200, PLAIN_BODY.encode("utf-8"), "text/plain; charset=utf-8")
        elif path == "/no-type-text":
            self._send(200, b"just some words", None)
        elif path == "/no-type-html":
            self._send(200, b"<!doctype html><title>T</title><p>Body</p>", None)
        elif path == "/no-type-binary":
            self._send(200, b"\x00\x01\x02\x03binary", None)
        elif path == "/gzip":
            raw = PLAIN_BODY.encode("utf-8") * 100
            self._send(200, gzip.compress(raw), "text/plain; charset=utf-8", Content_Encoding="gzip")
        elif path == "/echo":
            echoed = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
            self._send(200, echoed, "application/json")
        elif path == "/set-cookie":
            self._send(302, b"", "text/plain", Location="/echo", Set_Cookie="session=abc; Path=/")
        elif path == "/r/abs":
            self._redirect(f"{self._origin()}/r/rel/step")
        elif path == "/r/rel/step":
            self._redirect("../../text")
        elif path.startswith("/status-redirect/"):
            self._redirect("/text", status=int(path.rsplit("/", 1)[1]))
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            if n == 0:
                self._send(200, b"end of chain", "text/plain")
            else:
                self._redirect(f"/chain/{n - 1}")
        elif path == "/loop/a":
            self._redirect("/loop/b")
        elif path == "/loop/b":
            self._redirect(f"{self._origin()}/loop/a")
        elif path == "/loop/self":
            self._redirect("/loop/self")
        elif path == "/redirect-to-file":
            self._redirect("file:///etc/passwd")
        elif path == "/redirect-to-ftp":
            self._redirect("ftp://127.0.0.1/pub")
        elif path == "/not-found":
            self._send(404, b"<h1>nope</h1>", "text/html")
        elif path == "/error":
            self._send(500, b"boom", "text/plain")
        elif path == "/teapot":
            self.send_response(418, "Short And Stout")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(HUGE_SIZE))
            self.end_headers()
            chunk = b"0123456789abcdef" * 4096  # 64 KiB
            for _ in range(HUGE_SIZE // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.write(b"x" * (HUGE_SIZE % len(chunk)))
        elif path == "/huge-no-length":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><head><title>Big</title></head><body>")
            for _ in range(HUGE_SIZE // 16):
                self.wfile.write(b"<p>para</p>     ")
        elif path == "/slow":
            self.server.stop.wait(10)
            self._send(200, b"too late", "text/plain")
        elif path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(400):  # one byte every 50 ms: each read is quick, the whole is slow
                if self.server.stop.is_set():
                    break
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        elif path == "/image.png":
            self._send(200, PNG_BYTES, "image/png")
        elif path == "/octet":
            self._send(200, b"\x00\x01", "application/octet-stream")
        else:
            self._send(404, b"unknown route", "text/plain")


@dataclass
class Served:
    server: _Server
    scheme: str = "http"
    host: str = "127.0.0.1"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.host}:{self.port}{path}"

    @property
    def hits(self) -> list[str]:
        return self.server.hits

    @property
    def connections(self) -> int:
        return self.server.connections


def _start(server: _Server) -> Iterator[_Server]:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def served() -> Iterator[Served]:
    for server in _start(_Server()):
        yield Served(server)


def opts(**overrides: Any) -> WebFetchOptions:
    """Options for tests that talk to the loopback server (so private addresses are allowed)."""
    values: dict[str, Any] = {"allow_private_addresses": True, "timeout_seconds": 5.0}
    values.update(overrides)
    return WebFetchOptions(**values)


def guarded(**overrides: Any) -> WebFetchOptions:
    """Default options: the SSRF guard is on."""
    values: dict[str, Any] = {"timeout_seconds": 5.0}
    values.update(overrides)
    return WebFetchOptions(**values)


def static_resolver(table: dict[str, list[str]], calls: list[str] | None = None) -> Any:
    async def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


async def must_not_resolve(host: str, port: int) -> list[str]:
    raise AssertionError(f"the resolver must not be asked about {host}")


# -- successful fetches -----------------------------------------------------------


async def test_sample_html_exact_text_title_and_charset(served: Served) -> None:
    result = await fetch_url(served.url("/page.html"), opts())
    assert result.status_code == 200
    assert result.content_type == "text/html"
    assert result.charset == "cp1252"
    assert result.title == "Café & Bar — Menu"
    assert result.text == SAMPLE_TEXT
    assert result.final_url == served.url("/page.html")
    assert result.redirects == []
    assert not result.truncated
    assert result.bytes_read == len(SAMPLE_HTML.encode("cp1252"))


async def test_sample_html_tool_text(served: Served) -> None:
    result = await fetch_url(served.url("/page.html"), opts())
    assert result.as_tool_text() == (
        f"URL: {served.url('/page.html')}\n"
        "Status: 200 OK\n"
        "Content-Type: text/html; charset=cp1252\n"
        "Title: Café & Bar — Menu\n"
        "\n" + SAMPLE_TEXT
    )


async def test_meta_charset_used_when_header_has_none(served: Served) -> None:
    result = await fetch_url(served.url("/meta-charset.html"), opts())
    assert result.charset == "cp1252"
    assert result.title == "Présenté"
    assert result.text == "Prix : 10 €"


async def test_meta_http_equiv_charset(served: Served) -> None:
    result = await fetch_url(served.url("/http-equiv.html"), opts())
    assert result.charset == "cp932"
    assert result.title == "日本語"
    assert result.text == "こんにちは"


async def test_shift_jis_is_decoded_as_browsers_do(served: Served) -> None:
    """Browsers read the Shift_JIS label as Windows-31J; strict Shift_JIS turns ① into U+FFFD."""
    result = await fetch_url(served.url("/windows-31j.html"), opts())
    assert result.charset == "cp932"
    assert result.text == "\u2460 6:00\uff5e24:00"


async def test_header_charset_wins_over_meta(served: Served) -> None:
    result = await fetch_url(served.url("/header-wins.html"), opts())
    assert result.charset == "utf-8"
    assert result.text == "été"


async def test_latin1_plain_text(served: Served) -> None:
    result = await fetch_url(served.url("/latin1.txt"), opts())
    assert result.text == "naïve façade"
    assert result.title is None


async def test_invalid_utf8_is_replaced_not_fatal(served: Served) -> None:
    result = await fetch_url(served.url("/bad-utf8.txt"), opts())
    assert result.text == "ok \ufffd\ufffd end"


async def test_json_returned_as_is(served: Served) -> None:
    result = await fetch_url(served.url("/json"), opts())
    assert result.content_type == "application/json"
    assert result.text == JSON_BODY
    assert result.title is None
    assert result.as_tool_text() == (
        f"URL: {served.url('/json')}\nStatus: 200 OK\n"
        f"Content-Type: application/json; charset=utf-8\n\n{JSON_BODY}"
    )


async def test_plain_text_returned_as_is(served: Served) -> None:
    result = await fetch_url(served.url("/text"), opts())
    assert result.content_type == "text/plain"
    assert result.text == PLAIN_BODY


@pytest.mark.parametrize(
    ("path", "content_type", "text"),
    [
        ("/problem+json", "application/problem+json", '{"title": "x"}'),
        (
            "/feed.xml",
            "application/rss+xml",
            '<?xml version="1.0" encoding="iso-8859-1"?><rss><title>é</title></rss>',
        ),
    ],
)
async def test_structured_text_types(served: Served, path: str, content_type: str, text: str) -> None:
    result = await fetch_url(served.url(path), opts())
    assert result.content_type == content_type
    assert result.text == text


async def test_xhtml_is_converted_like_html(served: Served) -> None:
    result = await fetch_url(served.url("/xhtml"), opts())
    assert (result.title, result.text) == ("X", "Hi")


@pytest.mark.parametrize(
    ("path", "content_type", "title", "text"),
    [
        ("/no-type-text", "text/plain", None, "just some words"),
        ("/no-type-html", "text/html", "T", "Body"),
    ],
)
async def test_missing_content_type_is_sniffed(
    served: Served, path: str, content_type: str, title: str | None, text: str
) -> None:
    result = await fetch_url(served.url(path), opts())
    assert (result.content_type, result.title, result.text) == (content_type, title, text)


async def test_gzip_body_is_decoded(served: Served) -> None:
    result = await fetch_url(served.url("/gzip"), opts())
    assert result.text == PLAIN_BODY * 100
    assert result.bytes_read == len(PLAIN_BODY.encode()) * 100


async def test_user_agent_and_host_header_sent(served: Served) -> None:
    result = await fetch_url(served.url("/echo"), opts(user_agent="probe/9.9"))
    headers = json.loads(result.text)
    assert headers["user-agent"] == "probe/9.9"
    assert headers["host"] == f"127.0.0.1:{served.port}"
    assert "cookie" not in headers


async def test_no_cookies_within_a_redirect_chain_or_between_calls(served: Served) -> None:
    first = await fetch_url(served.url("/set-cookie"), opts())
    assert "cookie" not in json.loads(first.text)
    second = await fetch_url(served.url("/echo"), opts())
    assert "cookie" not in json.loads(second.text)


async def test_hostname_is_pinned_to_the_resolved_address(served: Served) -> None:
    calls: list[str] = []
    resolve = static_resolver({"site.test": ["127.0.0.1"]}, calls)
    result = await fetch_url(served.url("/echo", host="site.test"), opts(), resolve=resolve)
    assert json.loads(result.text)["host"] == f"site.test:{served.port}"
    assert result.final_url == served.url("/echo", host="site.test")
    assert calls == ["site.test"]


async def test_next_checked_address_tried_when_connect_fails(served: Served) -> None:
    # The server listens on 127.0.0.1 only; 127.0.0.2 refuses the connection.
    resolve = static_resolver({"multi.test": ["127.0.0.2", "127.0.0.1"]})
    result = await fetch_url(served.url("/text", host="multi.test"), opts(), resolve=resolve)
    assert result.text == PLAIN_BODY


async def test_integer_host_reaches_pinned_address_when_allowed(served: Served) -> None:
    result = await fetch_url(served.url("/text", host="0x7f000001"), opts(), resolve=must_not_resolve)
    assert result.text == PLAIN_BODY


# -- redirects ----------------------------------------------------------------------


async def test_redirect_chain_absolute_then_relative(served: Served) -> None:
    result = await fetch_url(served.url("/r/abs"), opts())
    assert result.final_url == served.url("/text")
    assert result.requested_url == served.url("/r/abs")
    assert result.redirects == [served.url("/r/abs"), served.url("/r/rel/step")]
    assert result.text == PLAIN_BODY
    assert served.hits == ["/r/abs", "/r/rel/step", "/text"]
    assert f"Redirected from: {served.url('/r/abs')}" in result.as_tool_text()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_every_redirect_status_is_followed(served: Served, status: int) -> None:
    result = await fetch_url(served.url(f"/status-redirect/{status}"), opts())
    assert result.final_url == served.url("/text")


async def test_redirect_limit_is_exact(served: Served) -> None:
    result = await fetch_url(served.url("/chain/3"), opts(max_redirects=3))
    assert result.text == "end of chain"
    assert len(result.redirects) == 3


async def test_too_many_redirects(served: Served) -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url(served.url("/chain/10"), opts(max_redirects=3))
    assert info.value.kind == "too_many_redirects"
    assert str(info.value) == (
        f"too many redirects fetching {served.url('/chain/10')} (more than max_redirects = 3)"
    )
    assert served.hits == ["/chain/10", "/chain/9", "/chain/8", "/chain/7"]


async def test_zero_redirects_allowed(served: Served) -> None:
    with pytest.raises(WebFetchError, match="too many redirects"):
        await fetch_url(served.url("/chain/1"), opts(max_redirects=0))


@pytest.mark.parametrize("path", ["/loop/a", "/loop/self"])
async def test_redirect_loop(served: Served, path: str) -> None:
    with pytest.raises(WebFetchError, match="redirect loop") as info:
        await fetch_url(served.url(path), opts(max_redirects=20))
    assert info.value.kind == "redirect_loop"
    assert len(served.hits) <= 2


@pytest.mark.parametrize(("path", "scheme"), [("/redirect-to-file", "file"), ("/redirect-to-ftp", "ftp")])
async def test_redirect_to_other_scheme_refused(served: Served, path: str, scheme: str) -> None:
    with pytest.raises(WebFetchError, match=f"unsupported URL scheme '{scheme}'") as info:
        await fetch_url(served.url(path), opts())
    assert info.value.kind == "unsupported_scheme"
    assert "redirected from" in str(info.value)


# -- HTTP errors and content types ---------------------------------------------------


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/not-found", 404, "HTTP 404 Not Found from {url}"),
        ("/error", 500, "HTTP 500 Internal Server Error from {url}"),
        ("/teapot", 418, "HTTP 418 Short And Stout from {url}"),
    ],
)
async def test_http_error_status(served: Served, path: str, status: int, message: str) -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url(served.url(path), opts())
    assert info.value.kind == "http_status"
    assert info.value.status_code == status
    assert str(info.value) == message.format(url=served.url(path))


@pytest.mark.parametrize(
    ("path", "media_type"), [("/image.png", "image/png"), ("/octet", "application/octet-stream")]
)
async def test_binary_content_type_refused(served: Served, path: str, media_type: str) -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url(served.url(path), opts())
    assert info.value.kind == "unsupported_content_type"
    assert str(info.value) == (
        f"content type {media_type} of {served.url(path)} is not supported "
        "(only text, HTML, JSON and XML can be read)"
    )


async def test_binary_body_without_content_type_refused(served: Served) -> None:
    with pytest.raises(WebFetchError, match="looks binary"):
        await fetch_url(served.url("/no-type-binary"), opts())


# -- size limits ----------------------------------------------------------------------


async def test_huge_body_truncated_at_max_bytes(served: Served) -> None:
    result = await fetch_url(served.url("/huge"), opts(max_bytes=100_000, max_chars=1_000_000))
    assert result.truncated and result.body_truncated and not result.text_truncated
    assert result.bytes_read == 100_000
    assert result.content_length == HUGE_SIZE
    assert result.text == ("0123456789abcdef" * 6250)
    tool_text = result.as_tool_text()
    assert (
        "Note: truncated: the response body is larger than max_bytes = 100000; "
        f"only the first 100000 bytes of {HUGE_SIZE} were read." in tool_text
    )
    assert tool_text.endswith("\n[… truncated]")


async def test_huge_html_without_length_truncated_and_still_parsed(served: Served) -> None:
    result = await fetch_url(served.url("/huge-no-length"), opts(max_bytes=50_000, max_chars=100))
    assert result.body_truncated and result.text_truncated
    assert result.bytes_read == 50_000
    assert result.content_length is None
    assert result.title == "Big"
    assert result.text.startswith("para\n\npara\n\n")
    assert len(result.text) == 100
    assert "only the first 50000 bytes were read" in result.as_tool_text()


async def test_body_exactly_max_bytes_is_not_truncated(served: Served) -> None:
    size = len(PLAIN_BODY.encode())
    result = await fetch_url(served.url("/text"), opts(max_bytes=size))
    assert not result.truncated
    assert result.text == PLAIN_BODY


async def test_cut_inside_multibyte_character_drops_the_partial_character(served: Served) -> None:
    result = await fetch_url(served.url("/utf8-long.txt"), opts(max_bytes=101))
    assert result.body_truncated
    assert result.text == "\u00e9" * 50


async def test_text_cut_at_max_chars(served: Served) -> None:
    result = await fetch_url(served.url("/text"), opts(max_chars=10))
    assert result.text == PLAIN_BODY[:10]
    assert result.text_truncated and result.truncated and not result.body_truncated
    assert result.total_chars == len(PLAIN_BODY)
    assert (
        f"Note: truncated: the text was cut at max_chars = 10 characters (of {len(PLAIN_BODY)})."
        in result.as_tool_text()
    )


# -- time limit --------------------------------------------------------------------------


async def test_slow_response_times_out_within_bound(served: Served) -> None:
    start = time.monotonic()
    with pytest.raises(WebFetchError) as info:
        await fetch_url(served.url("/slow"), opts(timeout_seconds=0.5))
    elapsed = time.monotonic() - start
    assert info.value.kind == "timeout"
    assert str(info.value) == f"timed out after 0.5 seconds fetching {served.url('/slow')}"
    assert elapsed < 1.5


async def test_trickling_body_bounded_by_total_time_not_per_read(served: Served) -> None:
    # Each byte arrives well within the per-read timeout; only a wall-clock bound stops this.
    start = time.monotonic()
    with pytest.raises(WebFetchError) as info:
        await fetch_url(served.url("/trickle"), opts(timeout_seconds=0.7))
    elapsed = time.monotonic() - start
    assert info.value.kind == "timeout"
    assert elapsed < 1.7


async def test_timeout_covers_dns_resolution() -> None:
    async def slow_resolve(host: str, port: int) -> list[str]:
        import asyncio

        await asyncio.sleep(10)
        return ["93.184.216.34"]

    start = time.monotonic()
    with pytest.raises(WebFetchError, match=r"timed out after 0\.3 seconds"):
        await fetch_url("http://slow-dns.test/", guarded(timeout_seconds=0.3), resolve=slow_resolve)
    assert time.monotonic() - start < 1.3


# -- connection and DNS failures --------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_connect_failure() -> None:
    port = _closed_port()
    with pytest.raises(WebFetchError) as info:
        await fetch_url(f"http://127.0.0.1:{port}/", opts())
    assert info.value.kind == "connect"
    assert str(info.value).startswith(
        f"could not connect to 127.0.0.1 port {port} for http://127.0.0.1:{port}/:"
    )


async def test_dns_failure_with_resolver_error() -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url("http://no-such-host.test/page", guarded(), resolve=static_resolver({}))
    assert info.value.kind == "dns"
    assert str(info.value) == (
        "could not resolve host 'no-such-host.test' for http://no-such-host.test/page: "
        "Name or service not known"
    )


async def test_dns_failure_with_the_real_resolver() -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url("http://no-such-host.invalid/", guarded(timeout_seconds=5))
    assert info.value.kind in ("dns", "timeout")


async def test_resolver_returning_nothing() -> None:
    with pytest.raises(WebFetchError, match="no addresses found"):
        await fetch_url("http://empty.test/", guarded(), resolve=static_resolver({"empty.test": []}))


# -- URL validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "kind", "message"),
    [
        ("file:///etc/passwd", "unsupported_scheme", "unsupported URL scheme 'file' in file:///etc/passwd"),
        ("ftp://example.com/x", "unsupported_scheme", "unsupported URL scheme 'ftp' in ftp://example.com/x"),
        ("javascript:alert(1)", "unsupported_scheme", "unsupported URL scheme 'javascript'"),
        ("example.com/page", "invalid_url", "it must start with http:// or https://"),
        ("", "invalid_url", "it must start with http:// or https://"),
        ("http:///path", "invalid_url", "it has no host name"),
        ("http://[::1/", "invalid_url", "malformed URL http://[::1/"),
        ("http://example.com:99999/", "invalid_url", "port 99999 is out of range"),
        ("http://bad host/", "invalid_url", "invalid host name"),
        ("http://0177.0.0.1/", "invalid_url", "malformed URL"),
        ("http://user:pw@example.com/", "invalid_url", "embedded credentials"),
    ],
)
async def test_bad_urls_rejected(url: str, kind: str, message: str) -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url(url, guarded(), resolve=must_not_resolve, transport=_failing_transport())
    assert info.value.kind == kind
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# -- SSRF guard -------------------------------------------------------------------------------------


def _failing_transport() -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"no request may be sent, got {request.url}")

    return httpx.MockTransport(handler)


async def test_loopback_refused_by_default_and_server_not_contacted(served: Served) -> None:
    url = served.url("/text")
    with pytest.raises(WebFetchError) as info:
        await fetch_url(url, guarded())
    assert info.value.kind == "blocked_address"
    assert str(info.value) == (
        f"refused to fetch {url}: address 127.0.0.1 is loopback (set allow_private_addresses = true to allow)"
    )
    assert served.hits == []
    assert served.connections == 0


async def test_localhost_name_refused_with_the_real_resolver(served: Served) -> None:
    with pytest.raises(WebFetchError, match=r"address (127\.0\.0\.1|::1) is loopback"):
        await fetch_url(served.url("/text", host="localhost"), guarded())
    assert served.connections == 0


@pytest.mark.parametrize(
    ("host", "shown", "reason"),
    [
        ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1", "loopback"),
        ("0x7f000001", "127.0.0.1", "loopback"),
        ("2130706433", "127.0.0.1", "loopback"),
        ("127.1", "127.0.0.1", "loopback"),
        ("0x7f.0.0.1", "127.0.0.1", "loopback"),
        ("[::1]", "::1", "loopback"),
    ],
)
async def test_loopback_spellings_refused(served: Served, host: str, shown: str, reason: str) -> None:
    with pytest.raises(WebFetchError, match=f"address {shown} is {reason} ") as info:
        await fetch_url(served.url("/text", host=host), guarded(), resolve=must_not_resolve)
    assert info.value.kind == "blocked_address"
    assert served.connections == 0


@pytest.mark.parametrize(
    ("url", "shown", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "link-local"),
        ("http://10.0.0.1/", "10.0.0.1", "private"),
        ("http://192.168.1.1/", "192.168.1.1", "private"),
        ("http://172.16.0.1/", "172.16.0.1", "private"),
        ("http://0.0.0.0:8080/", "0.0.0.0", "unspecified"),
        ("http://[::]/", "::", "unspecified"),
        ("http://[fe80::1]/", "fe80::1", "link-local"),
        ("http://[fd00::1]/", "fd00::1", "private"),
        ("http://[ff02::1]/", "ff02::1", "multicast"),
        ("http://224.0.0.1/", "224.0.0.1", "multicast"),
        ("http://100.64.0.1/", "100.64.0.1", "not globally routable"),
        ("https://[::ffff:10.0.0.1]/", "::ffff:10.0.0.1", "private"),
        ("https://[::ffff:169.254.169.254]/", "::ffff:169.254.169.254", "link-local"),
        ("http://[64:ff9b::7f00:1]/", "64:ff9b::7f00:1", "loopback"),
        ("http://[2002:a00:1::1]/", "2002:a00:1::1", "private"),
        ("http://2852039166/", "169.254.169.254", "link-local"),
    ],
)
async def test_private_addresses_refused(url: str, shown: str, reason: str) -> None:
    with pytest.raises(WebFetchError) as info:
        await fetch_url(url, guarded(), resolve=must_not_resolve, transport=_failing_transport())
    assert info.value.kind == "blocked_address"
    assert f"address {shown} is {reason} (set allow_private_addresses = true to allow)" in str(info.value)


async def test_hostname_resolving_to_private_refused() -> None:
    resolve = static_resolver({"intranet.test": ["10.1.2.3"]})
    with pytest.raises(WebFetchError) as info:
        await fetch_url("http://intranet.test/", guarded(), resolve=resolve, transport=_failing_transport())
    assert str(info.value) == (
        "refused to fetch http://intranet.test/: address 10.1.2.3 is private "
        "(set allow_private_addresses = true to allow)"
    )


async def test_any_private_address_among_several_refuses_the_host() -> None:
    resolve = static_resolver({"mixed.test": ["93.184.216.34", "127.0.0.1"]})
    with pytest.raises(WebFetchError, match=r"address 127\.0\.0\.1 is loopback"):
        await fetch_url("http://mixed.test/", guarded(), resolve=resolve, transport=_failing_transport())


def _public_site(
    routes: dict[str, Callable[[httpx.Request], httpx.Response]], seen: list[httpx.Request]
) -> Any:
    """A fake 'public' web site reached through `transport` (no real network)."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return routes[request.url.path](request)

    return httpx.MockTransport(handler)


async def test_redirect_from_public_host_to_loopback_refused(served: Served) -> None:
    target = served.url("/text")
    seen: list[httpx.Request] = []
    transport = _public_site({"/go": lambda r: httpx.Response(302, headers={"Location": target})}, seen)
    resolve = static_resolver({"public.test": ["93.184.216.34"]})
    with pytest.raises(WebFetchError) as info:
        await fetch_url("http://public.test/go", guarded(), transport=transport, resolve=resolve)
    assert str(info.value) == (
        f"refused to fetch {target} (redirected from http://public.test/go): address 127.0.0.1 is loopback "
        "(set allow_private_addresses = true to allow)"
    )
    assert [str(r.url) for r in seen] == ["http://93.184.216.34/go"]
    assert served.connections == 0


async def test_relative_redirect_is_checked_too() -> None:
    # The relative Location keeps the host, which now resolves (rebinds) to a private address.
    answers = iter([["93.184.216.34"], ["10.0.0.7"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    seen: list[httpx.Request] = []
    transport = _public_site({"/a": lambda r: httpx.Response(301, headers={"Location": "b?x=1"})}, seen)
    with pytest.raises(
        WebFetchError, match=r"refused to fetch http://rebind\.test/b\?x=1 .*10\.0\.0\.7 is private"
    ):
        await fetch_url("http://rebind.test/a", guarded(), transport=transport, resolve=rebinding)
    assert len(seen) == 1


async def test_redirect_to_metadata_address_refused() -> None:
    seen: list[httpx.Request] = []
    transport = _public_site(
        {"/": lambda r: httpx.Response(307, headers={"Location": "http://169.254.169.254/latest/"})}, seen
    )
    resolve = static_resolver({"www.example.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]})
    with pytest.raises(WebFetchError, match=r"address 169\.254\.169\.254 is link-local"):
        await fetch_url("http://www.example.test/", guarded(), transport=transport, resolve=resolve)
    assert len(seen) == 1


async def test_request_goes_to_the_checked_address_with_host_header_and_sni() -> None:
    calls: list[str] = []
    resolve = static_resolver({"www.example.com": ["93.184.216.34"]}, calls)
    seen: list[httpx.Request] = []
    transport = _public_site(
        {"/p": lambda r: httpx.Response(200, text="hello", headers={"Content-Type": "text/plain"})}, seen
    )
    result = await fetch_url(
        "https://www.example.com:8443/p?q=1#frag", guarded(), transport=transport, resolve=resolve
    )
    assert result.text == "hello"
    assert result.final_url == "https://www.example.com:8443/p?q=1#frag"
    (request,) = seen
    assert request.url.host == "93.184.216.34"
    assert request.url.port == 8443
    assert request.url.path == "/p" and request.url.query == b"q=1"
    assert request.headers["host"] == "www.example.com:8443"
    assert request.extensions["sni_hostname"] == "www.example.com"
    assert calls == ["www.example.com"]  # resolved once: no second lookup to rebind


async def test_public_ipv6_pinned_in_brackets() -> None:
    seen: list[httpx.Request] = []
    transport = _public_site(
        {"/": lambda r: httpx.Response(200, text="v6", headers={"Content-Type": "text/plain"})}, seen
    )
    resolve = static_resolver({"v6.test": ["2606:4700:4700::1111"]})
    result = await fetch_url("http://v6.test/", guarded(), transport=transport, resolve=resolve)
    assert result.text == "v6"
    assert seen[0].url.host == "2606:4700:4700::1111"
    assert seen[0].headers["host"] == "v6.test"


async def test_redirect_to_private_address_followed_when_allowed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "10.0.0.2":
            return httpx.Response(302, headers={"Location": "http://10.0.0.1/x"})
        return httpx.Response(200, text="internal", headers={"Content-Type": "text/plain"})

    transport = httpx.MockTransport(handler)
    result = await fetch_url("http://10.0.0.2/", opts(), transport=transport, resolve=must_not_resolve)
    assert result.text == "internal"
    assert result.final_url == "http://10.0.0.1/x"


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("8.8.8.8", None),
        ("93.184.216.34", None),
        ("2606:4700:4700::1111", None),
        ("::ffff:8.8.8.8", None),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.0.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.0.1", "private"),
        ("fc00::1", "private"),
        ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "not globally routable"),
        ("64:ff9b::a00:1", "private"),
        ("2002:7f00:1::", "loopback"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo client 127.0.0.1
    ],
)
def test_blocked_address_reason(address: str, reason: str | None) -> None:
    assert blocked_address_reason(ipaddress.ip_address(address)) == reason


# -- https with pinning: SNI and certificate are checked against the name, not the IP ---------


@pytest.fixture
def tls_served(tmp_path: Path) -> Iterator[Served]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=secure.test",
            "-addext", "subjectAltName=DNS:secure.test",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    server = _Server()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def remember_sni(sock: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        server.sni_names.append(name)

    context.sni_callback = remember_sni
    server.socket = context.wrap_socket(server.socket, server_side=True)
    for running in _start(server):
        yield Served(running, scheme="https", host="secure.test", extra={"ca": cert})


async def test_https_pinned_with_sni_and_certificate_name(tls_served: Served) -> None:
    client_ctx = ssl.create_default_context(cafile=str(tls_served.extra["ca"]))
    transport = httpx.AsyncHTTPTransport(verify=client_ctx)
    resolve = static_resolver({"secure.test": ["127.0.0.1"]})
    result = await fetch_url(tls_served.url("/echo"), opts(), transport=transport, resolve=resolve)
    assert json.loads(result.text)["host"] == f"secure.test:{tls_served.port}"
    assert tls_served.server.sni_names == ["secure.test"]


async def test_https_certificate_for_another_name_fails(tls_served: Served) -> None:
    client_ctx = ssl.create_default_context(cafile=str(tls_served.extra["ca"]))
    transport = httpx.AsyncHTTPTransport(verify=client_ctx)
    resolve = static_resolver({"other.test": ["127.0.0.1"]})
    with pytest.raises(WebFetchError) as info:
        await fetch_url(
            tls_served.url("/echo", host="other.test"), opts(), transport=transport, resolve=resolve
        )
    assert info.value.kind == "connect"
    assert "certificate" in str(info.value).lower()


# -- HTML conversion details ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "title", "text"),
    [
        ("<title>A</title><p>cut mid-para", "A", "cut mid-para"),
        ("<html><head><title>T</title><p>head never closed</p>", "T", "head never closed"),
        ("<p>a<br>b</p><p>c</p>", None, "a\nb\n\nc"),
        ("<div><div>x</div></div><div>y</div>", None, "x\ny"),
        ("<p>one <a href='x'>link</a>, two</p>", None, "one link, two"),
        ("<svg><title>no</title></svg><title>yes</title>", "yes", ""),
        ("<p>&lt;&amp;&gt;&quot;&#39;&#x263A;&copy;</p>", None, "<&>\"'☺©"),
        ("<ol><li>x<li>y</ol>", None, "1. x\n2. y"),
        ("<ol start='9'><li>x</li><li>y</li></ol>", None, "9. x\n10. y"),
        ("<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>", None, "- a\n  - b\n  - c\n- d"),
        ("<ul><li><p>para one</p></li><li><p>para two</p></li></ul>", None, "- para one\n\n- para two"),
        (
            "<table><tr><th><p>Method</p></th><th><p>Returns</p></th></tr>"
            "<tr><td><p><code>acquire()</code></p></td><td><div>True</div></td></tr></table>",
            None,
            "Method | Returns\nacquire() | True",
        ),
        ("<p>a</p>\n\n\n<p>b</p>", None, "a\n\nb"),
        ("<body><script>x</script>visible<style>y</style></body>", None, "visible"),
        ("<title>unterminated", "unterminated", ""),
    ],
)
def test_html_to_text_cases(html: str, title: str | None, text: str) -> None:
    assert html_to_text(html) == (title, text)


def test_result_is_immutable_model() -> None:
    result = FetchResult(
        requested_url="http://a.test/",
        final_url="http://a.test/",
        redirects=[],
        status_code=200,
        content_type="text/plain",
        charset="utf-8",
        title=None,
        text="",
        truncated=False,
        body_truncated=False,
        text_truncated=False,
        bytes_read=0,
        content_length=0,
        total_chars=0,
        max_bytes=10,
        max_chars=10,
    )
    assert result.as_tool_text().endswith("\n\n(no readable text)")
    with pytest.raises(ValueError):
        result.text = "x"  # type: ignore[misc]
