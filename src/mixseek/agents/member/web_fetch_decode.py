"""Bounded, step-wise decoding of `Content-Encoding` for web-fetch: httpx decodes a chunk at once, so 2 KB of
`gzip, gzip` can become gigabytes. Each layer yields at most `STEP` bytes per call and is fed only when the
inner one used its input. gzip, deflate, and br when `brotli` can bound its output; anything else is
refused."""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from typing import Any, Protocol

from mixseek.errors import RuntimeFailure

__all__ = ["MAX_LAYERS", "STEP", "ContentDecoder", "ContentDecodingError", "supported_encodings"]

STEP = 64 * 1024
"""Most bytes any layer produces in one call."""

MAX_LAYERS = 4
"""More stacked encodings than this are refused (real servers use one)."""

_GZIP_MAGIC = b"\x1f\x8b"


class ContentDecodingError(RuntimeFailure):
    """The body cannot be decoded within the bounds; the message is one clause for the model."""


class _Layer(Protocol):
    consumed: int

    @property
    def finished(self) -> bool: ...

    def feed(self, data: bytes) -> None: ...

    def has_work(self) -> bool: ...

    def pull(self, limit: int) -> bytes: ...


class _ZlibLayer:
    """gzip or deflate, each call bounded by `max_length`; the first two bytes choose zlib or raw deflate,
    each further gzip member gets a new decompressor, anything after the end is ignored (as httpx does)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.consumed = 0
        self._gzip = name in ("gzip", "x-gzip")
        self._members = 0
        self._pending = b""
        self._more_output = False  # the last call filled its buffer: zlib may hold more
        self._finished = False
        self._obj: Any = None

    @property
    def finished(self) -> bool:
        return self._finished

    def feed(self, data: bytes) -> None:
        self.consumed += len(data)
        if not self._finished:
            self._pending = self._pending + data if self._pending else data

    def has_work(self) -> bool:
        if self._finished:
            return False
        if self._obj is None:
            return len(self._pending) >= 2
        return bool(self._pending) or self._more_output

    def pull(self, limit: int) -> bytes:
        if self._obj is None and not self._start():
            return b""
        try:
            out: bytes = self._obj.decompress(self._pending, limit)
        except zlib.error as exc:
            raise ContentDecodingError(f"its {self.name} data is corrupt ({exc})") from None
        self._pending = self._obj.unconsumed_tail
        self._more_output = len(out) >= limit
        if self._obj.eof:
            self._pending = self._obj.unused_data + self._pending
            self._obj = None
            self._more_output = False
            if not self._gzip:
                self._finish()
        return out

    def _start(self) -> bool:
        """A decompressor for the stream (or gzip member) that starts in `_pending`; False at the end."""
        if not self._gzip:
            self._obj = zlib.decompressobj(
                zlib.MAX_WBITS if _is_zlib_header(self._pending) else -zlib.MAX_WBITS
            )
        elif self._members == 0 or self._pending.startswith(_GZIP_MAGIC):
            self._obj = zlib.decompressobj(zlib.MAX_WBITS | 16)  # a bad first header is zlib's error
        else:
            self._finish()
            return False
        self._members += 1
        return True

    def _finish(self) -> None:
        self._finished = True
        self._pending = b""


def _is_zlib_header(data: bytes) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


class _BrotliLayer:
    """br via `brotli.Decompressor` with `output_buffer_limit`, asked again until a call yields nothing."""

    def __init__(self, decompressor: Any) -> None:
        self.name = "br"
        self.consumed = 0
        self._obj = decompressor
        self._pending = b""
        self._more_output = False

    @property
    def finished(self) -> bool:
        return bool(self._obj.is_finished())

    def feed(self, data: bytes) -> None:
        self.consumed += len(data)
        if not self.finished:
            self._pending = self._pending + data if self._pending else data

    def has_work(self) -> bool:
        if self._obj.is_finished():
            return False
        return bool(self._pending) or self._more_output or not self._obj.can_accept_more_data()

    def pull(self, limit: int) -> bytes:
        data = b""
        if self._obj.can_accept_more_data():
            data, self._pending = self._pending, b""
        try:
            out: bytes = self._obj.process(data, output_buffer_limit=limit)
        except Exception as exc:  # brotli.error is not exported under one stable name
            raise ContentDecodingError(f"its br data is corrupt ({exc})") from None
        self._more_output = bool(out)
        return out


def _bounded_brotli() -> Callable[[], Any] | None:
    """A factory of brotli decompressors that can bound their output, if such a package is installed."""
    try:
        brotli = importlib.import_module("brotli")
    except ImportError:
        return None
    decompressor = getattr(brotli, "Decompressor", None)
    if decompressor is None or not hasattr(decompressor, "can_accept_more_data"):
        return None  # versions before 1.2 decode a whole chunk at once
    factory: Callable[[], Any] = decompressor
    return factory


def supported_encodings() -> tuple[str, ...]:
    """The content codings this process can decode within bounds."""
    return ("gzip", "deflate", "br") if _bounded_brotli() is not None else ("gzip", "deflate")


def _layer(name: str) -> _Layer:
    if name in ("gzip", "x-gzip", "deflate"):
        return _ZlibLayer(name)
    if name == "br":
        factory = _bounded_brotli()
        if factory is not None:
            return _BrotliLayer(factory())
    raise ContentDecodingError(
        f"its content encoding {name!r} is not supported (only {', '.join(supported_encodings())})"
    )


class ContentDecoder:
    """Undoes a list of content codings step by step, each step producing at most `STEP` bytes."""

    def __init__(self, encodings: list[str], *, input_budget: int) -> None:
        names = [e for e in (n.strip().lower() for n in encodings) if e and e != "identity"]
        if len(names) > MAX_LAYERS:
            raise ContentDecodingError(
                f"it has {len(names)} stacked content encodings (at most {MAX_LAYERS} are accepted)"
            )
        # innermost (applied first by the server, undone last) at the end
        self._layers = [_layer(n) for n in reversed(names)]
        self._budget = input_budget

    @property
    def finished(self) -> bool:
        """Whether a layer has reached the end of its stream: once `step()` is None, nothing more comes."""
        return any(layer.finished for layer in self._layers)

    @property
    def identity(self) -> bool:
        """Whether there is nothing to decode."""
        return not self._layers

    def feed(self, raw: bytes) -> None:
        """Bytes from the network, for the outermost layer."""
        if not self._layers:
            raise ValueError("identity decoder takes no input")
        self._give(0, raw)

    def step(self, limit: int = STEP) -> bytes | None:
        """One bounded call of the innermost layer with work: output (maybe empty), or None for more input."""
        last = len(self._layers) - 1
        for i in range(last, -1, -1):
            layer = self._layers[i]
            if not layer.has_work():
                continue
            if i == last:
                return layer.pull(min(limit, STEP))
            out = layer.pull(STEP)
            if out:
                self._give(i + 1, out)
            return b""
        return None

    def _give(self, index: int, data: bytes) -> None:
        layer = self._layers[index]
        layer.feed(data)
        if layer.consumed > self._budget:
            raise ContentDecodingError(
                f"more than {self._budget} bytes of compressed data decode to too little text "
                "(a decompression bomb?)"
            )
