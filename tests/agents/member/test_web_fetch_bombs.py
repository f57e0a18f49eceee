"""`fetch_url` against decompression bombs served by a real HTTP server on 127.0.0.1.

A few KB of stacked `Content-Encoding` on the wire expand to hundreds of MB;
`max_bytes` must bound the decoded size (and so the memory), and the event loop
must keep running while the body is decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import importlib
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mixseek.agents.member.web_fetch_decode import ContentDecoder
from mixseek.agents.member.web_fetch_tool import FetchResult, WebFetchError, fetch_url
from mixseek.config.member_options import WebFetchOptions

BOMB_SIZE = 192 * 1024 * 1024
"""Decoded size of the big bombs: far above the 100 MB memory bound the tests assert."""

MEMORY_BOUND = 100 * 1024 * 1024
CHUNK = 16 * 1024 * 1024


def _compress_repeated(block: bytes, total: int, wbits: int) -> bytes:
    """`total` bytes made of `block` repeated, compressed chunk by chunk (never all in memory)."""
    obj = zlib.compressobj(6, zlib.DEFLATED, wbits)
    chunk = block * (CHUNK // len(block))
    parts = [obj.compress(chunk) for _ in range(total // len(chunk))]
    return b"".join([*parts, obj.flush()])


GZIP_WBITS = zlib.MAX_WBITS | 16
ZLIB_WBITS = zlib.MAX_WBITS
RAW_WBITS = -zlib.MAX_WBITS


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data, 9)


def _brotli() -> Any:
    return pytest.importorskip("brotli")


@pytest.fixture(scope="module")
def bombs() -> dict[str, tuple[str, bytes]]:
    """name -> (Content-Encoding header, body on the wire)."""
    inner_gzip = _compress_repeated(b"A", BOMB_SIZE, GZIP_WBITS)
    inner_zlib = _compress_repeated(b"A", BOMB_SIZE, ZLIB_WBITS)
    # A raw deflate stream of empty stored blocks (5 bytes each, no output), gzipped twice:
    # it decodes to nothing, at great length.
    empty_blocks = _compress_repeated(b"\x00\x00\x00\xff\xff", 64 * 1024 * 1024, GZIP_WBITS)
    table = {
        "gzip-gzip": ("gzip, gzip", gzip.compress(inner_gzip, 9)),
        "deflate-gzip": ("deflate, gzip", gzip.compress(inner_zlib, 9)),
        "gzip-deflate": ("gzip, deflate", _deflate(inner_gzip)),
        "gzip-x-gzip-split-headers": ("gzip|x-gzip", gzip.compress(inner_gzip, 9)),
        "empty-blocks": ("deflate, gzip, gzip", gzip.compress(empty_blocks, 9)),
    }
    return table


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, routes: dict[str, tuple[str, bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes = routes

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hangs up once it has max_bytes: expected


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        encoding, body = self.server.routes[self.path.lstrip("/")]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            for value in encoding.split("|"):  # several headers are one list (RFC 9110 §5.3)
                self.send_header("Content-Encoding", value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


@pytest.fixture
def serve() -> Iterator[Callable[[dict[str, tuple[str, bytes]]], str]]:
    """Start a server for some routes; returns its base URL."""
    servers: list[tuple[_Server, threading.Thread]] = []

    def start(routes: dict[str, tuple[str, bytes]]) -> str:
        server = _Server(routes)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(5)


def opts(**overrides: Any) -> WebFetchOptions:
    values: dict[str, Any] = {"allow_private_addresses": True, "timeout_seconds": 60.0}
    values.update(overrides)
    return WebFetchOptions(**values)


async def _fetch_measuring_memory(url: str, options: WebFetchOptions) -> tuple[FetchResult, int]:
    tracemalloc.start()
    try:
        result = await fetch_url(url, options)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", ["gzip-gzip", "deflate-gzip", "gzip-deflate", "gzip-x-gzip-split-headers"])
async def test_stacked_bomb_is_cut_at_max_bytes_in_little_memory(
    bombs: dict[str, tuple[str, bytes]], serve: Callable[[dict[str, tuple[str, bytes]]], str], name: str
) -> None:
    encoding, body = bombs[name]
    assert len(body) < 20_000  # a few KB on the wire ...
    base = serve({name: (encoding, body)})
    result, peak = await _fetch_measuring_memory(base + name, opts(max_bytes=1_000_000, max_chars=50))
    # ... give max_bytes of text, truncated, and never the 192 MB they decode to
    assert result.body_truncated and result.text_truncated
    assert result.bytes_read == 1_000_000
    assert result.text == "A" * 50
    assert "only the first 1000000 bytes were read" in result.as_tool_text()
    assert peak < MEMORY_BOUND, f"peak traced memory {peak / 1e6:.0f} MB"


async def test_brotli_layer_is_bounded_too(serve: Callable[[dict[str, tuple[str, bytes]]], str]) -> None:
    brotli = _brotli()
    if not hasattr(brotli.Decompressor, "can_accept_more_data"):
        pytest.skip("this brotli cannot bound its output (needs brotli >= 1.2)")
    inner = _compress_repeated(b"A", BOMB_SIZE, GZIP_WBITS)
    base = serve({"br": ("gzip, br", brotli.compress(inner))})
    result, peak = await _fetch_measuring_memory(base + "br", opts(max_bytes=1_000_000, max_chars=50))
    assert result.body_truncated and result.bytes_read == 1_000_000
    assert result.text == "A" * 50
    assert peak < MEMORY_BOUND, f"peak traced memory {peak / 1e6:.0f} MB"


def _time_of_one_blocking_decode(encoding: str, body: bytes) -> float:
    """How long decoding the whole bomb takes when nothing else may run (as httpx does it).

    The output is thrown away as it comes, so this needs no memory; it is the
    yardstick the event loop's longest pause is compared with.
    """
    start = time.monotonic()
    data = [body]
    for name in reversed([e.strip() for e in encoding.split(",")]):
        obj = zlib.decompressobj(GZIP_WBITS if name == "gzip" else ZLIB_WBITS)
        out: list[bytes] = []
        for piece in data:
            pending = piece
            while pending:
                out.append(obj.decompress(pending, CHUNK))
                pending = obj.unconsumed_tail
        data = out
    return time.monotonic() - start


async def test_event_loop_keeps_running_while_a_bomb_is_decoded(
    bombs: dict[str, tuple[str, bytes]], serve: Callable[[dict[str, tuple[str, bytes]]], str]
) -> None:
    encoding, body = bombs["gzip-gzip"]
    blocking = _time_of_one_blocking_decode(encoding, body)
    base = serve({"bomb": (encoding, body)})
    longest = 0.0
    done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal longest
        while not done.is_set():
            before = time.monotonic()
            await asyncio.sleep(0)
            longest = max(longest, time.monotonic() - before)

    beating = asyncio.create_task(heartbeat())
    try:
        result = await fetch_url(base + "bomb", opts())
    finally:
        done.set()
        await beating
    assert result.body_truncated and result.bytes_read == 2_000_000  # the default max_bytes
    # Decoding the whole bomb in one go blocks for `blocking` seconds; the fetch never pauses the
    # loop for anything near that (the factor leaves room for a loaded machine).
    assert longest < blocking / 2, f"longest pause {longest:.3f} s, blocking decode {blocking:.3f} s"


async def test_compressed_data_that_decodes_to_nothing_is_refused(
    bombs: dict[str, tuple[str, bytes]], serve: Callable[[dict[str, tuple[str, bytes]]], str]
) -> None:
    encoding, body = bombs["empty-blocks"]
    url = serve({"empty": (encoding, body)}) + "empty"
    with pytest.raises(WebFetchError) as info:
        await fetch_url(url, opts(max_bytes=100_000))
    assert info.value.kind == "content_encoding"
    assert str(info.value) == (
        f"could not decode the response body of {url}: more than 1248576 bytes of compressed data "
        "decode to too little text (a decompression bomb?)"
    )


@pytest.mark.parametrize(
    ("encoding", "body", "reason"),
    [
        ("compress", b"\x1f\x9d\x90A", "its content encoding 'compress' is not supported (only {supported})"),
        (
            "gzip, gzip, gzip, gzip, gzip",
            b"",
            "it has 5 stacked content encodings (at most 4 are accepted)",
        ),
        ("gzip", b"\x1f\x8b\x08\x00garbage-after-a-gzip-header", "its gzip data is corrupt ({zlib_error})"),
    ],
    ids=["unknown", "too-many-layers", "corrupt"],
)
async def test_bodies_that_cannot_be_decoded_within_bounds_are_refused(
    serve: Callable[[dict[str, tuple[str, bytes]]], str], encoding: str, body: bytes, reason: str
) -> None:
    if not body:
        body = b"hello"
        for _ in encoding.split(","):
            body = gzip.compress(body)
    url = serve({"x": (encoding, body)}) + "x"
    with pytest.raises(WebFetchError) as info:
        await fetch_url(url, opts())
    assert info.value.kind == "content_encoding"
    supported = "gzip, deflate, br" if _bounded_brotli_installed() else "gzip, deflate"
    message = str(info.value)
    prefix = f"could not decode the response body of {url}: "
    assert message.startswith(prefix)
    if "{zlib_error}" in reason:
        assert message[len(prefix) :].startswith("its gzip data is corrupt (Error -3 while decompressing")
    else:
        assert message == prefix + reason.format(supported=supported)


def _bounded_brotli_installed() -> bool:
    try:
        brotli = importlib.import_module("brotli")
    except ImportError:
        return False
    return hasattr(getattr(brotli, "Decompressor", None), "can_accept_more_data")


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(b"first member, ") + gzip.compress(b"second member")),
        ("deflate", zlib.compress(b"first member, second member")),
        ("deflate", zlib.compress(b"first member, second member")[2:-4]),  # raw deflate, as some servers send
        ("identity, gzip", gzip.compress(b"first member, second member")),
        ("x-gzip, deflate", _deflate(gzip.compress(b"first member, second member"))),
        ("gzip", gzip.compress(b"first member, second member") + b"trailing junk"),
    ],
    ids=[
        "gzip-two-members",
        "deflate-zlib",
        "deflate-raw",
        "identity-listed",
        "x-gzip-then-deflate",
        "junk-after-the-end",
    ],
)
async def test_honest_encodings_decode_exactly(
    serve: Callable[[dict[str, tuple[str, bytes]]], str], encoding: str, body: bytes
) -> None:
    result = await fetch_url(serve({"ok": (encoding, body)}) + "ok", opts())
    assert result.text == "first member, second member"
    assert not result.truncated
    assert result.bytes_read == len("first member, second member")


@pytest.mark.parametrize(
    ("encodings", "body"),
    [
        (["gzip"], gzip.compress(b"first member, ") + gzip.compress(b"second member")),
        (["deflate"], zlib.compress(b"first member, second member")),
        (["deflate"], zlib.compress(b"first member, second member")[2:-4]),
        (["gzip", "deflate"], _deflate(gzip.compress(b"first member, ") + gzip.compress(b"second member"))),
    ],
    ids=["gzip-two-members", "deflate-zlib", "deflate-raw", "stacked"],
)
@pytest.mark.parametrize("piece", [1, 2, 7, 1 << 20])
def test_decoding_does_not_depend_on_how_the_network_splits_the_body(
    encodings: list[str], body: bytes, piece: int
) -> None:
    decoder = ContentDecoder(encodings, input_budget=1 << 20)
    out: list[bytes] = []
    for start in range(0, len(body), piece):
        decoder.feed(body[start : start + piece])
        while (chunk := decoder.step()) is not None:
            out.append(chunk)
    assert b"".join(out) == b"first member, second member"
