"""The dashboard's defences over HTTP against a real server: response headers on every kind of
response, the Host check of a loopback bind, the token, and CSRF on every state-changing request.

CSRF is checked on the real app (its routes) and on two routes added here (a form and the
endpoints it posts to), so that what a route receives after the check is seen too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

import mixseek.ui.app as ui_app
from e2e.scripted import write_workspace
from mixseek.ui.security import CONTENT_SECURITY_POLICY, MAX_FORM_BYTES, token_cookie_value

from .conftest import Served

TOKEN = "s3cret-token"
HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


async def _form(request: Request) -> Response:
    token = request.scope["mixseek.csrf_token"]
    return HTMLResponse(
        '<form method="post" action="/echo">'
        f'<input type="hidden" name="csrf_token" value="{token}">'
        '<input name="note" value="hello"><button type="submit">Send</button></form>'
    )


async def _echo(request: Request) -> Response:
    if request.headers.get("content-type", "").startswith("application/json"):
        return PlainTextResponse(f"ok json={(await request.json())['note']}")
    form = await request.form()
    return PlainTextResponse(f"ok note={form['note']}")


TEST_ROUTES: list[BaseRoute] = [Route("/form", _form), Route("/echo", _echo, methods=["POST"])]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_workspace(tmp_path / "ws")


@pytest.fixture
def with_test_routes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The dashboard's own routes plus the form and echo routes above."""
    real = ui_app.page_routes
    monkeypatch.setattr(ui_app, "page_routes", lambda: [*real(), *TEST_ROUTES])
    yield


def csrf_cookie(response: httpx.Response, port: int) -> str:
    return response.cookies[f"mixseek-csrf-{port}"]


# -- headers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "status", "cache"),
    [
        ("/", 200, "no-store"),
        ("/?sort=nonsense", 400, "no-store"),
        ("/no/such/page", 404, "no-store"),
        ("/static/mixseek.css", 200, "no-cache"),
        ("/static/vendor/htmx.min.js", 200, "no-cache"),
        ("/static/nope.js", 404, "no-cache"),
    ],
)
def test_every_response_has_the_security_headers(
    root: Path, serve: Callable[..., Served], path: str, status: int, cache: str
) -> None:
    response = httpx.get(serve(root).url + path, timeout=60)
    assert response.status_code == status
    for name, value in HEADERS.items():
        assert response.headers[name] == value
    assert response.headers["cache-control"] == cache


def test_refusals_and_redirects_have_the_headers_too(root: Path, serve: Callable[..., Served]) -> None:
    served = serve(root, token=TOKEN)
    responses = [
        httpx.get(served.url + "/", timeout=60),  # 401
        httpx.get(served.url + f"/?token={TOKEN}", timeout=60),  # 303
        httpx.post(served.url + "/", headers={"authorization": f"Bearer {TOKEN}"}, timeout=60),  # 403
    ]
    assert [r.status_code for r in responses] == [401, 303, 403]
    for response in responses:
        assert {name: response.headers[name] for name in HEADERS} == HEADERS
        assert response.headers["cache-control"] == "no-store"


def test_static_files_are_served_with_their_types(root: Path, serve: Callable[..., Served]) -> None:
    url = serve(root).url
    css = httpx.get(url + "/static/mixseek.css", timeout=60)
    assert css.headers["content-type"].startswith("text/css")
    script = httpx.get(url + "/static/vendor/htmx-ext-sse.min.js", timeout=60)
    assert script.headers["content-type"].startswith("text/javascript")
    assert 'htmx.defineExtension("sse"' in script.text


# -- Host ------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "192.168.1.5:8765", ""])
def test_a_loopback_bind_refuses_other_host_names(
    root: Path, serve: Callable[..., Served], host: str
) -> None:
    response = httpx.get(serve(root).url + "/", headers={"host": host}, timeout=60)
    assert response.status_code == 400
    assert response.text == (
        f"400: Host '{host}' is not this dashboard (it answers to localhost and 127.0.0.1 only)\n"
    )


@pytest.mark.parametrize("host", ["localhost:8765", "127.0.0.1", "[::1]:8765", "127.0.0.2:80"])
def test_a_loopback_bind_answers_to_loopback_names(
    root: Path, serve: Callable[..., Served], host: str
) -> None:
    assert httpx.get(serve(root).url + "/", headers={"host": host}, timeout=60).status_code == 200


def test_a_non_loopback_bind_answers_to_any_host_with_its_token(
    root: Path, serve: Callable[..., Served]
) -> None:
    served = serve(root, host="0.0.0.0", token=TOKEN)
    headers = {"host": "dashboard.lan:8765", "authorization": f"Bearer {TOKEN}"}
    assert httpx.get(served.url + "/", headers=headers, timeout=60).status_code == 200


# -- token -----------------------------------------------------------------------------------

NEEDS_TOKEN = (
    "401: this dashboard needs its token: open it once with ?token=TOKEN, "
    "or send 'Authorization: Bearer TOKEN'\n"
)


@pytest.mark.parametrize("path", ["/", "/?status=completed", "/static/mixseek.css", "/no/such/page"])
@pytest.mark.parametrize(
    "headers",
    [{}, {"authorization": "Bearer wrong"}, {"authorization": f"Basic {TOKEN}"}, {"authorization": "Bearer"}],
)
def test_with_a_token_set_a_request_without_it_is_refused(
    root: Path, serve: Callable[..., Served], path: str, headers: dict[str, str]
) -> None:
    response = httpx.get(serve(root, token=TOKEN).url + path, headers=headers, timeout=60)
    assert response.status_code == 401
    assert response.text == NEEDS_TOKEN
    assert response.headers["www-authenticate"] == 'Bearer realm="mixseek"'
    assert "set-cookie" not in response.headers


def test_a_bearer_token_is_let_in(root: Path, serve: Callable[..., Served]) -> None:
    url = serve(root, token=TOKEN).url
    for path in ("/", "/static/mixseek.css"):
        response = httpx.get(url + path, headers={"authorization": f"Bearer {TOKEN}"}, timeout=60)
        assert response.status_code == 200


def test_the_token_link_sets_a_cookie_and_redirects_without_the_token(
    root: Path, serve: Callable[..., Served]
) -> None:
    served = serve(root, token=TOKEN)
    port = served.settings.port
    response = httpx.get(served.url + f"/?status=completed&token={TOKEN}&sort=score", timeout=60)
    assert response.status_code == 303
    assert response.headers["location"] == "/?status=completed&sort=score"
    cookies = response.headers.get_list("set-cookie")
    (token_cookie,) = [c for c in cookies if c.startswith(f"mixseek-token-{port}=")]
    assert sorted(part.strip() for part in token_cookie.split(";")[1:]) == [
        "HttpOnly",
        "Path=/",
        "SameSite=Strict",
    ]
    value = token_cookie.split(";")[0].split("=", 1)[1]
    assert value == token_cookie_value(TOKEN) and TOKEN not in value
    with httpx.Client(base_url=served.url, timeout=60) as client:
        client.cookies.set(f"mixseek-token-{port}", value)
        assert client.get("/?status=completed&sort=score").status_code == 200
        assert client.get("/static/mixseek.css").status_code == 200
        client.cookies.set(f"mixseek-token-{port}", "0" * 64)
        assert client.get("/").status_code == 401


@pytest.mark.parametrize(
    ("path", "location"),
    [(f"/?token={TOKEN}", "/"), (f"//evil.example/?token={TOKEN}", "/evil.example/")],
)
def test_the_token_link_redirects_to_this_server_only(
    root: Path, serve: Callable[..., Served], path: str, location: str
) -> None:
    response = httpx.get(serve(root, token=TOKEN).url + path, timeout=60)
    assert (response.status_code, response.headers["location"]) == (303, location)


def test_a_wrong_token_link_or_a_posted_one_is_refused(root: Path, serve: Callable[..., Served]) -> None:
    url = serve(root, token=TOKEN).url
    assert httpx.get(url + "/?token=wrong", timeout=60).status_code == 401
    assert httpx.post(url + f"/?token={TOKEN}", timeout=60).status_code == 401


def test_wrong_tokens_in_a_row_are_answered_ever_later(root: Path, serve: Callable[..., Served]) -> None:
    served = serve(root, token=TOKEN)
    wrong = {"authorization": "Bearer wrong"}

    def slowed(response: httpx.Response) -> tuple[str, str] | None:
        assert (response.status_code, response.text) == (401, NEEDS_TOKEN)
        if "x-mixseek-wrong-tokens" not in response.headers:
            return None
        return response.headers["x-mixseek-wrong-tokens"], response.headers["x-mixseek-token-delay"]

    with httpx.Client(base_url=served.url, timeout=60) as client:
        assert [slowed(client.get("/", headers=wrong)) for _ in range(4)] == [
            ("1", "0.1"),
            ("2", "0.2"),
            ("3", "0.4"),
            ("4", "0.8"),
        ]
        assert slowed(client.get("/")) is None  # no token at all: refused at once, not counted
        # another address is another client: its first wrong token waits the first delay
        other = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=served.url, timeout=60, transport=other) as elsewhere:
            assert slowed(elsewhere.get("/", headers=wrong)) == ("1", "0.1")
        assert slowed(client.get("/static/mixseek.css", headers=wrong)) == ("5", "1.6")
        # the right token forgets the failures; a wrong link or a wrong cookie counts like a header
        assert client.get("/", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert slowed(client.get("/?token=wrong")) == ("1", "0.1")
        client.cookies.set(f"mixseek-token-{served.settings.port}", "0" * 64)
        assert slowed(client.get("/")) == ("2", "0.2")


def test_without_a_token_set_no_token_is_asked(root: Path, serve: Callable[..., Served]) -> None:
    response = httpx.get(serve(root).url + "/", timeout=60)
    assert response.status_code == 200
    assert not any(c.startswith("mixseek-token") for c in response.headers.get_list("set-cookie"))


# -- CSRF ------------------------------------------------------------------------------------


@pytest.fixture
def site(
    root: Path, serve: Callable[..., Served], with_test_routes: None
) -> Iterator[tuple[httpx.Client, str]]:
    """A client that has loaded the form page (so it holds the CSRF cookie), and the token."""
    served = serve(root)
    with httpx.Client(base_url=served.url, timeout=60) as client:
        page = client.get("/form")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token is not None
        assert token.group(1) == csrf_cookie(page, served.settings.port)
        yield client, token.group(1)


def test_the_csrf_cookie_is_random_per_browser_and_kept(site: tuple[httpx.Client, str], root: Path) -> None:
    client, token = site
    again = client.get("/form")
    assert f'value="{token}"' in again.text
    assert "set-cookie" not in again.headers  # the browser's cookie is kept
    with httpx.Client(base_url=str(client.base_url), timeout=60) as other:
        assert f'value="{token}"' not in other.get("/form").text


def test_the_csrf_cookie_attributes(root: Path, serve: Callable[..., Served]) -> None:
    served = serve(root)
    response = httpx.get(served.url + "/", timeout=60)
    (cookie,) = response.headers.get_list("set-cookie")
    name_value, *attributes = [part.strip() for part in cookie.split(";")]
    assert name_value.startswith(f"mixseek-csrf-{served.settings.port}=")
    assert len(name_value.split("=", 1)[1]) >= 43  # 32 random bytes
    assert sorted(attributes) == ["HttpOnly", "Path=/", "SameSite=Strict"]


def test_a_form_with_its_token_passes_and_the_route_reads_it_whole(site: tuple[httpx.Client, str]) -> None:
    client, token = site
    response = client.post("/echo", data={"csrf_token": token, "note": "hello"})
    assert (response.status_code, response.text) == (200, "ok note=hello")
    multipart = client.post(
        "/echo", data={"csrf_token": token, "note": "päper"}, files={"f": ("a.txt", b"x")}
    )
    assert (multipart.status_code, multipart.text) == (200, "ok note=päper")


def test_the_header_carries_the_token_for_other_bodies(site: tuple[httpx.Client, str]) -> None:
    client, token = site
    response = client.post("/echo", json={"note": "via header"}, headers={"x-csrf-token": token})
    assert (response.status_code, response.text) == (200, "ok json=via header")


@pytest.mark.parametrize(
    ("data", "headers", "message"),
    [
        ({"note": "x"}, {}, "403: CSRF token missing: reload the page and try again\n"),
        (
            {"note": "x", "csrf_token": "forged"},
            {},
            "403: CSRF token does not match: reload the page and try again\n",
        ),
        (
            {"note": "x"},
            {"x-csrf-token": "forged"},
            "403: CSRF token does not match: reload the page and try again\n",
        ),
    ],
)
def test_a_missing_or_wrong_token_is_refused(
    site: tuple[httpx.Client, str], data: dict[str, str], headers: dict[str, str], message: str
) -> None:
    client, _ = site
    response = client.post("/echo", data=data, headers=headers)
    assert (response.status_code, response.text) == (403, message)


def test_a_post_without_the_cookie_is_refused(site: tuple[httpx.Client, str]) -> None:
    client, token = site
    client.cookies.clear()
    response = client.post("/echo", data={"csrf_token": token, "note": "x"})
    assert (response.status_code, response.text) == (
        403,
        "403: CSRF cookie missing: reload the page and try again\n",
    )


@pytest.mark.parametrize(
    ("headers", "refusal"),
    [
        ({"origin": "http://evil.example"}, "cross-origin request refused (Origin: http://evil.example)"),
        ({"origin": "http://localhost:1"}, "cross-origin request refused (Origin: http://localhost:1)"),
        ({"origin": "null"}, "cross-origin request refused (Origin: null)"),
        ({"sec-fetch-site": "cross-site"}, "cross-origin request refused (Sec-Fetch-Site: cross-site)"),
        (
            {"sec-fetch-site": "same-site", "origin": "null"},
            "cross-origin request refused (Sec-Fetch-Site: same-site)",
        ),
        (
            {"referer": "http://evil.example/page"},
            "cross-origin request refused (Referer from http://evil.example)",
        ),
        ({}, None),
        ({"origin": "SELF"}, None),
        ({"referer": "SELF/form"}, None),
        ({"sec-fetch-site": "same-origin", "origin": "null"}, None),  # a form of a no-referrer page
        ({"sec-fetch-site": "same-origin", "origin": "SELF"}, None),
    ],
)
def test_the_request_must_come_from_this_origin(
    site: tuple[httpx.Client, str], headers: dict[str, str], refusal: str | None
) -> None:
    client, token = site
    own = str(client.base_url).rstrip("/")
    headers = {name: value.replace("SELF", own) for name, value in headers.items()}
    response = client.post("/echo", data={"csrf_token": token, "note": "x"}, headers=headers)
    if refusal is None:
        assert (response.status_code, response.text) == (200, "ok note=x")
    else:
        assert (response.status_code, response.text) == (403, f"403: {refusal}\n")


def test_a_body_too_large_to_hold_a_form_is_refused(site: tuple[httpx.Client, str]) -> None:
    client, token = site
    response = client.post(
        "/echo",
        content=b"csrf_token=" + token.encode() + b"&note=" + b"x" * MAX_FORM_BYTES,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 413


def test_the_real_routes_are_behind_the_csrf_check(root: Path, serve: Callable[..., Served]) -> None:
    """Every state-changing route of the dashboard refuses a request without the token; with it,
    the request reaches the route (which may still say 404 or 405, but not 403)."""
    served = serve(root)
    paths = ["/"] + [
        route.path.replace("{execution_id}", "nope")
        for route in ui_app.create_app(served.settings).routes
        if isinstance(route, Route) and route.methods and "POST" in route.methods
    ]
    with httpx.Client(base_url=served.url, timeout=60) as client:
        token = csrf_cookie(client.get("/"), served.settings.port)
        for path in paths:
            refused = client.post(path, data={"note": "x"})
            assert refused.status_code == 403, path
            passed = client.post(path, data={"csrf_token": token})
            assert passed.status_code != 403, (path, passed.text)
