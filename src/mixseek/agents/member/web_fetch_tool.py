"""`fetch_url`, the tool of `web-fetch` members: one GET (redirects followed by hand) under `WebFetchOptions`,
readable text back, each failure a one-sentence `WebFetchError` for the model. Every address of a hop's host
must be public (IPv4-mapped, NAT64, 6to4, Teredo and integer forms too) and the request goes to the checked
address (Host and SNI keep the name), so DNS rebinding fails; hence no proxies, no cookies."""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict

from mixseek.agents.member._html_text import html_to_text, normalize_charset, sniff_charset
from mixseek.agents.member.web_fetch_decode import ContentDecoder, ContentDecodingError
from mixseek.config.member_options import WebFetchOptions
from mixseek.errors import RuntimeFailure

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves `(host, port)` to IP address strings; the default uses `loop.getaddrinfo`."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

WebFetchErrorKind = Literal[
    "invalid_url",
    "unsupported_scheme",
    "blocked_address",
    "dns",
    "connect",
    "timeout",
    "too_many_redirects",
    "redirect_loop",
    "http_status",
    "unsupported_content_type",
    "content_encoding",
    "network",
]

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ACCEPT = (
    "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.9,application/xml;q=0.8,*/*;q=0.1"
)
_HOSTNAME = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$")
_TEXT_LIKE_APPLICATION_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/x-javascript"}
    | {"application/ecmascript", "application/ndjson", "application/x-ndjson", "application/yaml"}
    | {"application/x-yaml", "application/toml", "application/sql", "application/graphql"}
)
_NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")
# Bodies up to this size are turned into text on the event loop; bigger ones in a worker thread.
_INLINE_TEXT_BYTES = 256 * 1024
# Slack on top of 2 x max_bytes for compressed data (headers, small-chunk overhead).
_COMPRESSED_SLACK = 1024 * 1024


class WebFetchError(RuntimeFailure):
    """A URL could not be fetched; the message is one sentence for the model."""

    def __init__(
        self, message: str, *, kind: WebFetchErrorKind, url: str, status_code: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind: WebFetchErrorKind = kind
        self.url = url
        self.status_code = status_code


class FetchResult(BaseModel):
    """What one fetch produced; `truncated` is `body_truncated` (at `max_bytes`) or `text_truncated`."""

    model_config = ConfigDict(frozen=True)

    requested_url: str
    final_url: str
    redirects: list[str]
    status_code: int
    content_type: str
    charset: str | None
    title: str | None
    text: str
    truncated: bool
    body_truncated: bool
    text_truncated: bool
    bytes_read: int
    content_length: int | None
    total_chars: int
    max_bytes: int
    max_chars: int

    def notes(self) -> list[str]:
        """Human-readable truncation notes (empty when nothing was cut)."""
        notes: list[str] = []
        if self.body_truncated:
            of = f" of {self.content_length}" if self.content_length is not None else ""
            notes.append(
                f"the response body is larger than max_bytes = {self.max_bytes}; "
                f"only the first {self.bytes_read} bytes{of} were read"
            )
        if self.text_truncated:
            notes.append(
                f"the text was cut at max_chars = {self.max_chars} characters (of {self.total_chars})"
            )
        return notes

    def as_tool_text(self) -> str:
        """What the model sees: a short header, a blank line, then the text."""
        lines = [f"URL: {self.final_url}"]
        if self.redirects:
            lines.append(f"Redirected from: {self.requested_url}")
        lines.append(f"Status: {self.status_code} {_phrase(self.status_code)}".rstrip())
        ctype = self.content_type + (f"; charset={self.charset}" if self.charset else "")
        lines.append(f"Content-Type: {ctype}")
        if self.title:
            lines.append(f"Title: {self.title}")
        lines.extend(f"Note: truncated: {note}." for note in self.notes())
        body = self.text if self.text.strip() else "(no readable text)"
        if self.truncated:
            body = body + "\n[… truncated]"
        return "\n".join(lines) + "\n\n" + body


# -- address guard ------------------------------------------------------------


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse the numeric host forms `inet_aton` accepts: `2130706433`, `0x7f000001`, `127.1`, `0177.0.0.1`."""
    parts = host.rstrip(".").split(".") if host not in ("", ".") else []
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        try:
            if part[:2].lower() == "0x":
                value = int(part[2:], 16) if len(part) > 2 else 0
            elif len(part) > 1 and part.startswith("0"):
                value = int(part[1:], 8)
            else:
                value = int(part, 10) if part.isdigit() else -1
        except ValueError:
            return None
        if value < 0:
            return None
        values.append(value)
    *leading, last = values
    if any(v > 255 for v in leading) or last >= 256 ** (5 - len(values)):
        return None
    number = 0
    for v in leading:
        number = number * 256 + v
    number = (number << (8 * (5 - len(values)))) | last
    return ipaddress.IPv4Address(number)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64_PREFIX:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


_BLOCKED_KINDS = ("unspecified", "loopback", "link-local", "multicast", "reserved", "private")


def _classify(ip: IPAddress) -> str | None:
    """The first of `_BLOCKED_KINDS` (`ip.is_<kind>`) that `ip` is, else whether it is global."""
    blocked = (kind for kind in _BLOCKED_KINDS if getattr(ip, "is_" + kind.replace("-", "_")))
    return next(blocked, None if ip.is_global else "not globally routable")


def blocked_address_reason(ip: IPAddress) -> str | None:
    """Why the guard refuses `ip` (e.g. "loopback"), or None if it is a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d reaches a.b.c.d itself
                return _classify(embedded)
            return _classify(embedded) or _classify(ip)
    return _classify(ip)


def _show_ip(ip: IPAddress) -> str:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return str(ip)


async def _getaddrinfo_resolve(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # Scope ids and duplicates are dropped by `_addresses_for`, as for any resolver.
    return [str(sockaddr[0]) for _family, _type, _proto, _canon, sockaddr in infos]


# -- URLs -----------------------------------------------------------------------


def _parse_url(raw: str, *, redirected_from: str | None = None, base: httpx.URL | None = None) -> httpx.URL:
    """Parse and check an absolute http(s) URL (or a `Location` relative to `base`)."""
    shown = raw if redirected_from is None else f"{raw} (redirected from {redirected_from})"

    def invalid(problem: str, shown_url: str | None = None) -> WebFetchError:
        return WebFetchError(f"malformed URL {shown_url or shown}: {problem}", kind="invalid_url", url=raw)

    try:
        url = base.join(raw) if base is not None else httpx.URL(raw.strip())
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise invalid(str(exc)) from None
    if redirected_from is not None:
        shown = f"{url} (redirected from {redirected_from})"
    scheme = url.scheme.lower()
    if not scheme:
        raise invalid("it must start with http:// or https://", repr(shown))
    if scheme not in _DEFAULT_PORTS:
        raise WebFetchError(
            f"unsupported URL scheme '{scheme}' in {shown} (only http and https are allowed)",
            kind="unsupported_scheme",
            url=raw,
        )
    host = url.host
    if not host:
        raise invalid("it has no host name")
    if url.userinfo:
        raise WebFetchError(
            f"refused to fetch {shown}: URLs with embedded credentials (user:password@) are not supported",
            kind="invalid_url",
            url=raw,
        )
    if url.port is not None and not 1 <= url.port <= 65535:
        raise invalid(f"port {url.port} is out of range")
    if _ip_literal(host) is None and not _HOSTNAME.match(url.raw_host.decode("ascii", "replace")):
        raise invalid(f"invalid host name {host!r}")
    return url


def _ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


# -- fetching -------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text if text else type(exc).__name__


async def _addresses_for(
    url: httpx.URL, options: WebFetchOptions, resolve: Resolver, shown: str
) -> list[IPAddress]:
    """Resolve the URL's host and check every address against the guard."""
    host = url.raw_host.decode("ascii")
    literal = _ip_literal(url.host) or _legacy_ipv4(host)
    addresses = [literal] if literal is not None else await _resolve_host(url, resolve, shown)
    if not options.allow_private_addresses:
        for ip in addresses:
            why = blocked_address_reason(ip)
            if why is not None:
                raise WebFetchError(
                    f"refused to fetch {shown}: address {_show_ip(ip)} is {why} "
                    "(set allow_private_addresses = true to allow)",
                    kind="blocked_address",
                    url=str(url),
                )
    return addresses


async def _resolve_host(url: httpx.URL, resolve: Resolver, shown: str) -> list[IPAddress]:
    """The distinct addresses the resolver gives for the URL's host name."""

    def dns_error(reason: str) -> WebFetchError:
        return WebFetchError(
            f"could not resolve host {url.host!r} for {shown}: {reason}", kind="dns", url=str(url)
        )

    port = url.port or _DEFAULT_PORTS[url.scheme]
    try:
        resolved = await resolve(url.raw_host.decode("ascii").rstrip("."), port)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else _describe(exc)
        raise dns_error(reason) from None
    addresses: list[IPAddress] = []
    for text in resolved:
        ip = _ip_literal(text.split("%", 1)[0])
        if ip is None:
            raise dns_error(f"the resolver returned {text!r}")
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise dns_error("no addresses found")
    return addresses


async def _send_pinned(
    client: httpx.AsyncClient,
    url: httpx.URL,
    addresses: list[IPAddress],
    options: WebFetchOptions,
    shown: str,
) -> httpx.Response:
    """GET `url` from one of the checked `addresses`, with Host header and SNI of the real name."""
    host_header = url.netloc.decode("ascii")
    headers = {
        "Host": host_header,
        "User-Agent": options.user_agent,
        "Accept": _ACCEPT,
        "Accept-Encoding": "gzip, deflate",
    }
    extensions: dict[str, object] = {}
    if url.scheme == "https" and _ip_literal(url.host) is None:
        extensions["sni_hostname"] = url.raw_host.decode("ascii").rstrip(".")
    last_error: httpx.ConnectError | None = None
    for ip in addresses:
        request = httpx.Request(
            "GET", url.copy_with(host=str(ip), fragment=None), headers=headers, extensions=extensions
        )
        try:
            return await client.send(request, stream=True)
        except httpx.ConnectError as exc:
            last_error = exc
    port = url.port or _DEFAULT_PORTS[url.scheme]
    reason = _describe(last_error) if last_error is not None else "no address to connect to"
    raise WebFetchError(
        f"could not connect to {url.host} port {port} for {shown}: {reason}", kind="connect", url=str(url)
    )


def _parse_content_type(header: str | None) -> tuple[str, dict[str, str]]:
    if not header:
        return "", {}
    media_type, *raw_params = header.split(";")
    params: dict[str, str] = {}
    for raw in raw_params:
        key, sep, value = raw.partition("=")
        if sep:
            params[key.strip().lower()] = value.strip().strip("\"'")
    return media_type.strip().lower(), params


def _kind_of(media_type: str) -> Literal["html", "xml", "text"] | None:
    if media_type in ("text/html", "application/xhtml+xml"):
        return "html"
    if media_type in ("text/xml", "application/xml") or media_type.endswith("+xml"):
        return "xml"
    if media_type.startswith("text/") or media_type in _TEXT_LIKE_APPLICATION_TYPES:
        return "text"
    if media_type.startswith("application/") and media_type.endswith("+json"):
        return "text"
    return None


def _sniff_kind(body: bytes) -> Literal["html", "text"] | None:
    head = body[:1024]
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    start = head.lstrip().lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "text"


def _decode(body: bytes, charset: str, *, complete: bool) -> str:
    try:
        decoder = codecs.getincrementaldecoder(charset)(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    # A body cut at max_bytes may end inside a multi-byte character: drop that tail.
    return decoder.decode(body, final=complete)


class _Body:
    """Decoded body bytes collected up to a limit; one byte more tells that it was cut."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, chunk: bytes) -> bool:
        """Keep what fits; True once the limit is passed."""
        if self.size + len(chunk) > self.limit:
            self.chunks.append(chunk[: self.limit - self.size])
            self.size = self.limit
            self.truncated = True
            return True
        self.chunks.append(chunk)
        self.size += len(chunk)
        return False


async def _read_body(response: httpx.Response, limit: int, url: httpx.URL, shown: str) -> tuple[bytes, bool]:
    """Read at most `limit` decoded bytes (and whether there was more), giving the loop a turn per step."""
    if response.is_stream_consumed:  # a transport that answers with an in-memory, already decoded body
        content = response.content
        return content[:limit], len(content) > limit
    try:
        decoder = ContentDecoder(
            response.headers.get_list("content-encoding", split_commas=True),
            input_budget=2 * limit + _COMPRESSED_SLACK,
        )
        body = _Body(limit)
        async for raw in response.aiter_raw():
            if decoder.identity:
                if body.add(raw):
                    break
                continue
            decoder.feed(raw)
            while (out := decoder.step(body.limit - body.size + 1)) is not None:
                if body.add(out):
                    break
                await asyncio.sleep(0)
            if body.truncated or decoder.finished:
                break
    except ContentDecodingError as exc:
        raise WebFetchError(
            f"could not decode the response body of {shown}: {exc}", kind="content_encoding", url=str(url)
        ) from None
    return b"".join(body.chunks), body.truncated


async def _fetch(
    url: str, options: WebFetchOptions, transport: httpx.AsyncBaseTransport | None, resolve: Resolver
) -> FetchResult:
    current = _parse_url(url)
    requested = str(current)
    shown = requested
    visited = {str(current.copy_with(fragment=None))}
    redirects: list[str] = []
    async with httpx.AsyncClient(
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(options.timeout_seconds),
    ) as client:
        while True:
            addresses = await _addresses_for(current, options, resolve, shown)
            response = await _send_pinned(client, current, addresses, options, shown)
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECT_STATUSES and location:
                    target = _parse_url(location.strip(), redirected_from=str(current), base=current)
                    if not target.fragment and current.fragment:
                        target = target.copy_with(fragment=current.fragment)
                    key = str(target.copy_with(fragment=None))
                    if key in visited:
                        raise WebFetchError(
                            f"redirect loop fetching {requested}: {target} redirects back to a URL "
                            "already visited",
                            kind="redirect_loop",
                            url=requested,
                        )
                    if len(redirects) >= options.max_redirects:
                        raise WebFetchError(
                            f"too many redirects fetching {requested} "
                            f"(more than max_redirects = {options.max_redirects})",
                            kind="too_many_redirects",
                            url=requested,
                        )
                    visited.add(key)
                    redirects.append(str(current))
                    current = target
                    shown = f"{current} (redirected from {requested})"
                    continue
                return await _build_result(response, current, requested, redirects, options, shown)
            finally:
                await response.aclose()


def _to_text(body: bytes, charset: str, kind: str, complete: bool) -> tuple[str | None, str]:
    """The (title, readable text) of a body; CPU-bound for big pages."""
    decoded = _decode(body, charset, complete=complete)
    if kind == "html":
        return html_to_text(decoded)
    return None, decoded


def _media_kind(
    response: httpx.Response, url: httpx.URL, shown: str
) -> tuple[str, dict[str, str], str | None]:
    """Refuse an error status or a non-text type; the media type, its parameters and kind (None: sniff)."""
    status = response.status_code
    if status >= 400:
        status_text = f"{status} {response.reason_phrase or _phrase(status)}".strip()
        raise WebFetchError(
            f"HTTP {status_text} from {shown}", kind="http_status", url=str(url), status_code=status
        )
    media_type, params = _parse_content_type(response.headers.get("content-type"))
    kind = _kind_of(media_type) if media_type else None
    if media_type and kind is None:
        raise WebFetchError(
            f"content type {media_type} of {shown} is not supported "
            "(only text, HTML, JSON and XML can be read)",
            kind="unsupported_content_type",
            url=str(url),
        )
    return media_type, params, kind


def _content_length(headers: httpx.Headers) -> int | None:
    if headers.get("content-encoding", "identity").lower() not in ("", "identity"):
        return None  # the header counts compressed bytes, bytes_read counts decoded ones
    try:
        return int(headers["content-length"])
    except (KeyError, ValueError):
        return None


async def _build_result(
    response: httpx.Response,
    url: httpx.URL,
    requested: str,
    redirects: list[str],
    options: WebFetchOptions,
    shown: str,
) -> FetchResult:
    media_type, params, kind = _media_kind(response, url, shown)
    body, body_truncated = await _read_body(response, options.max_bytes, url, shown)
    if kind is None:
        kind = _sniff_kind(body)
        if kind is None:
            raise WebFetchError(
                f"{shown} has no content type and its body looks binary, which is not supported",
                kind="unsupported_content_type",
                url=str(url),
            )
        media_type = "text/html" if kind == "html" else "text/plain"

    charset = (
        sniff_charset(body[:4], html=False)  # a byte-order mark wins
        or normalize_charset(params.get("charset"))
        or (sniff_charset(body, html=kind == "html") if kind in ("html", "xml") else None)
        or "utf-8"
    )
    if len(body) > _INLINE_TEXT_BYTES:
        title, text = await asyncio.to_thread(_to_text, body, charset, kind, not body_truncated)
    else:
        title, text = _to_text(body, charset, kind, not body_truncated)
    total_chars = len(text)
    text_truncated = total_chars > options.max_chars
    return FetchResult(
        requested_url=requested,
        final_url=str(url),
        redirects=redirects,
        status_code=response.status_code,
        content_type=media_type,
        charset=charset if charset != "utf-8-sig" else "utf-8",
        title=title,
        text=text[: options.max_chars],
        truncated=body_truncated or text_truncated,
        body_truncated=body_truncated,
        text_truncated=text_truncated,
        bytes_read=len(body),
        content_length=_content_length(response.headers),
        total_chars=total_chars,
        max_bytes=options.max_bytes,
        max_chars=options.max_chars,
    )


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


async def fetch_url(
    url: str,
    options: WebFetchOptions,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    resolve: Resolver | None = None,
) -> FetchResult:
    """`url`'s readable text (http/https only), or a `WebFetchError`; `transport`, `resolve`: for tests."""
    try:
        async with asyncio.timeout(options.timeout_seconds):
            return await _fetch(url, options, transport, resolve or _getaddrinfo_resolve)
    except (TimeoutError, httpx.TimeoutException):
        raise WebFetchError(
            f"timed out after {options.timeout_seconds:g} seconds fetching {url}", kind="timeout", url=url
        ) from None
    except httpx.HTTPError as exc:
        raise WebFetchError(
            f"connection error while fetching {url}: {_describe(exc)}", kind="network", url=url
        ) from None
