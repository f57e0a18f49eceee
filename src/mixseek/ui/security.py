"""Every dashboard request's Host, token, CSRF and response headers, in depth (it shows model text and starts
paid executions): strict CSP, no-sniff, no-referrer, `no-store`; Host checked on loopback (DNS rebinding); a
token (Bearer, or `?token=` once: an HttpOnly cookie), slower the more wrong in a row; for all but GET and
HEAD a same-origin check (`Sec-Fetch-Site` first: no-referrer posts `Origin: null`) and the CSRF token."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

from starlette.datastructures import URL, Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mixseek.ui.settings import UISettings, is_loopback
from mixseek.ui.wrong_tokens import WrongTokens

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}
SAFE_METHODS = frozenset({"GET", "HEAD"})
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
CSRF_SCOPE_KEY = "mixseek.csrf_token"
TOKEN_PARAM = "token"
MAX_FORM_BYTES = 10 * 1024 * 1024
"""A posted form is read whole to find its CSRF token; nothing the dashboard takes is larger."""
_COOKIE_SALT = b"mixseek-ui-token-cookie"


def _cookie_names(settings: UISettings) -> tuple[str, str]:
    """(token cookie, CSRF cookie), named by port: cookies do not tell a host's ports apart."""
    return f"mixseek-token-{settings.port}", f"mixseek-csrf-{settings.port}"


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def token_cookie_value(token: str) -> str:
    """What the token cookie holds: derived from the token, so the cookie jar never holds it."""
    return hmac.new(token.encode(), _COOKIE_SALT, hashlib.sha256).hexdigest()


def _set_cookie(name: str, value: str) -> str:
    cookie: SimpleCookie = SimpleCookie()
    cookie[name] = value
    morsel = cookie[name]
    morsel["path"] = "/"
    morsel["httponly"] = True
    morsel["samesite"] = "Strict"
    return morsel.OutputString()


def _loopback_host(host_header: str) -> bool:
    """Whether a Host header names this machine (`localhost`, `127.0.0.1:8765`, `[::1]:8765`)."""
    hostname = urlsplit(f"//{host_header}").hostname
    if hostname is None:
        return False
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False


def _origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None


def cross_origin_reason(headers: Headers, own_origin: str) -> str | None:
    """Why a state-changing request does not come from `own_origin`; None if it does. A POST with none of
    the three headers is no cross-site browser request; it still needs the CSRF token."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"cross-origin request refused (Sec-Fetch-Site: {site})"
    origin = headers.get("origin")
    if origin == "null":  # what a browser sends from a no-referrer page: Sec-Fetch-Site vouches for it
        return None if site is not None else "cross-origin request refused (Origin: null)"
    if origin is not None:
        return None if origin.lower() == own_origin else f"cross-origin request refused (Origin: {origin})"
    referer = headers.get("referer")
    if site is None and referer is not None and _origin_of(referer) != own_origin:
        return f"cross-origin request refused (Referer from {_origin_of(referer) or 'elsewhere'})"
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body already read, then whatever the client sends next."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _no_more_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body; None when it is larger than MAX_FORM_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _form_token(scope: Scope, body: bytes) -> str | None:
    """The `csrf_token` field of a posted form (URL-encoded or multipart), if any."""
    request = Request(scope, _replay(body, _no_more_body))
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return None
    try:
        # fields as large as the body may be: the route, not this check, sets its own limits
        form = await request.form(max_part_size=MAX_FORM_BYTES)
    except (HTTPException, MultiPartException):  # a malformed form has no token
        return None
    try:
        value = form.get(CSRF_FIELD)
        return value if isinstance(value, str) else None
    finally:
        await form.close()


class SecurityMiddleware:
    """The checks and headers above, outermost, so that error pages get the headers too."""

    def __init__(self, app: ASGIApp, settings: UISettings) -> None:
        self.app = app
        self.settings = settings
        self.token_cookie, self.csrf_cookie = _cookie_names(settings)
        self.check_host = is_loopback(settings.host)
        self.wrong_tokens = WrongTokens()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        csrf = request.cookies.get(self.csrf_cookie, "")
        new_csrf = len(csrf) < 32 or not csrf.isascii()
        if new_csrf:
            csrf = secrets.token_urlsafe(32)
        scope[CSRF_SCOPE_KEY] = csrf
        page = not scope["path"].startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if page:
                    headers["cache-control"] = "no-store"
                elif "cache-control" not in headers:
                    headers["cache-control"] = "no-cache"
                if new_csrf and page and let_in:  # only a request let in starts a browser's state
                    headers.append("set-cookie", _set_cookie(self.csrf_cookie, csrf))
            await send(message)

        let_in = False
        refusal = self._host_refusal(request)
        if refusal is None and self.settings.token:
            refusal = await self._token_refusal(request, self.settings.token)
        if refusal is None and request.method not in SAFE_METHODS:
            refusal, receive = await self._csrf_refusal(request, receive, csrf, known=not new_csrf)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        let_in = True
        await self.app(scope, receive, send_with_headers)

    def _host_refusal(self, request: Request) -> Response | None:
        """The response refusing a request by its Host, if it must be refused."""
        host = request.headers.get("host", "")
        if self.check_host and not _loopback_host(host):
            return _refuse(
                400, f"Host '{host}' is not this dashboard (it answers to localhost and 127.0.0.1 only)"
            )
        return None

    async def _token_refusal(self, request: Request, token: str) -> Response | None:
        """The refusal of a wrong token, after a wait growing with the client's wrong tokens in a row."""
        client = request.client.host if request.client is not None else ""
        authorization = request.headers.get("authorization", "")
        scheme, _, given = authorization.partition(" ")
        bearer = given.strip() if scheme.lower() == "bearer" else ""
        expected_cookie = token_cookie_value(token)
        cookie = request.cookies.get(self.token_cookie, "")
        from_query = request.query_params.get(TOKEN_PARAM, "")
        if (bearer and _same(bearer, token)) or (cookie and _same(cookie, expected_cookie)):
            self.wrong_tokens.right(client)
            return None
        if from_query and _same(from_query, token):
            self.wrong_tokens.right(client)
            if request.method in SAFE_METHODS:
                redirect = RedirectResponse(_without_token(request.url), status_code=303)
                redirect.raw_headers.append(
                    (b"set-cookie", _set_cookie(self.token_cookie, expected_cookie).encode("latin-1"))
                )
                return redirect
        refusal = _refuse(
            401,
            "this dashboard needs its token: open it once with ?token=TOKEN, "
            "or send 'Authorization: Bearer TOKEN'",
        )
        refusal.headers["www-authenticate"] = 'Bearer realm="mixseek"'
        if bearer or cookie or (from_query and not _same(from_query, token)):
            slowed = await self.wrong_tokens.wrong(client)
            refusal.headers["x-mixseek-wrong-tokens"] = str(slowed.failures)
            refusal.headers["x-mixseek-token-delay"] = f"{slowed.delay:g}"
        return refusal

    async def _csrf_refusal(
        self, request: Request, receive: Receive, csrf: str, *, known: bool
    ) -> tuple[Response | None, Receive]:
        """The refusal of a cross-site state-changing request, if any, and a `receive` replaying the body."""
        own_origin = f"{request.url.scheme}://{request.url.netloc}".lower()
        reason = cross_origin_reason(request.headers, own_origin)
        if reason is not None:
            return _refuse(403, reason), receive
        if not known:
            return _refuse(403, "CSRF cookie missing: reload the page and try again"), receive
        given = request.headers.get(CSRF_HEADER)
        if given is None:
            body = await _read_body(receive)
            if body is None:
                return _refuse(413, f"request body larger than {MAX_FORM_BYTES} bytes"), receive
            receive = _replay(body, receive)
            given = await _form_token(request.scope, body)
        if given is None:
            return _refuse(403, "CSRF token missing: reload the page and try again"), receive
        if not _same(given, csrf):
            return _refuse(403, "CSRF token does not match: reload the page and try again"), receive
        return None, receive


def _without_token(url: URL) -> str:
    """The request's own path and query without `token` (a path only, never `//elsewhere`, another host)."""
    rest = url.remove_query_params(TOKEN_PARAM)
    path = "/" + rest.path.lstrip("/")
    return f"{path}?{rest.query}" if rest.query else path


def _refuse(status: int, reason: str) -> Response:
    """A refusal: one line of plain text."""
    return PlainTextResponse(f"{status}: {reason}\n", status_code=status)
