"""Model-written text never runs as script on any dashboard page.

A real execution is stored by `mixseek exec` with scripted models whose every output carries XSS
payloads (a script tag, an event handler, a Markdown `javascript:` link, an HTML `javascript:`
link, an attribute break-out): in the user prompt, a team's id and name, the leader's submission,
the members' answers and errors, the metrics' comments, the judge's reasoning and the message
history. Every page that shows them is then read twice: over HTTP (the HTML as served, parsed) and
in Chromium (the DOM the browser built, after every `<details>` is opened).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from .conftest import Served
from .html_scan import PACKAGE_SCRIPTS, scan
from .stored_runs import (
    EVIL_TEAM_ID,
    EVIL_TEAM_NAME,
    PAYLOAD_LINE,
    PAYLOADS,
    run_exec,
    write_xss_workspace,
    xss_models,
)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


@dataclass(frozen=True)
class Stored:
    root: Path
    first: str
    second: str


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    root = write_xss_workspace(tmp_path_factory.mktemp("xss") / "ws")
    first = run_exec(root, PAYLOAD_LINE, xss_models())
    second = run_exec(root, f"again {PAYLOAD_LINE}", xss_models())
    return Stored(root, first, second)


def submission_path(execution_id: str, team_id: str, round_number: int) -> str:
    return f"/executions/{quote(execution_id, safe='')}/teams/{quote(team_id, safe='')}/rounds/{round_number}"


# page name -> (its path, the payloads a reader must see on it as text)
PAGES: dict[str, Callable[[Stored], tuple[str, tuple[str, ...]]]] = {
    # the runs table cuts a prompt after 120 characters: the first three payloads fit
    "runs": lambda s: ("/", PAYLOADS[:3]),
    "execution": lambda s: (f"/executions/{s.first}", PAYLOADS),
    "submission-evil-round-1": lambda s: (submission_path(s.first, EVIL_TEAM_ID, 1), PAYLOADS),
    "submission-evil-round-2": lambda s: (submission_path(s.first, EVIL_TEAM_ID, 2), PAYLOADS),
    "submission-beta-round-2": lambda s: (submission_path(s.second, "beta", 2), PAYLOADS),
    "compare": lambda s: (f"/compare?a={s.first}&b={s.second}", PAYLOADS),
    "compare-choose": lambda s: (f"/compare?a={s.first}", ()),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_served_html_has_no_script_but_the_packages_own(
    name: str, stored: Stored, serve: Callable[..., Served]
) -> None:
    path, visible = PAGES[name](stored)
    served = serve(stored.root)
    response = httpx.get(served.url + path)
    assert response.status_code == 200, response.text
    assert response.headers["content-security-policy"] == CSP
    page = scan(response.text)
    assert page.problems == []
    assert [src for tag, attrs in page.tags if tag == "script" for src in [attrs.get("src")]] == list(
        PACKAGE_SCRIPTS
    )
    for payload in visible:
        assert payload in page.text, f"{payload!r} is not shown as text"


FIND_PROBLEMS = """scripts => {
  const problems = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.toLowerCase().startsWith('on')) problems.push(`${el.tagName} ${attr.name}`);
      const plain = attr.value.replace(/[\\u0000-\\u0020\\u007f]/g, '').toLowerCase();
      if (plain.startsWith('javascript:')) problems.push(`${el.tagName} ${attr.name}=${attr.value}`);
    }
  }
  for (const script of document.scripts) {
    if (!script.src || !scripts.includes(new URL(script.src).pathname)) {
      problems.push('script: ' + script.outerHTML.slice(0, 100));
    }
  }
  for (const a of document.links) {
    if (a.protocol === 'javascript:') problems.push('link: ' + a.outerHTML.slice(0, 100));
  }
  return problems;
}"""


def visit(page: Any, url: str) -> tuple[Any, list[str]]:
    """Open `url` (every image loaded or failed), open every <details>; the response and the
    Content-Security-Policy violations the browser reported."""
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    response = page.goto(url, wait_until="load")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return response, violations


@pytest.mark.parametrize("name", list(PAGES))
def test_payloads_never_run_in_the_browser(
    name: str, stored: Stored, serve: Callable[..., Served], page: Any
) -> None:
    path, visible = PAGES[name](stored)
    served = serve(stored.root)
    response, violations = visit(page, served.url + path)
    assert response.status == 200
    assert response.headers["content-security-policy"] == CSP
    assert page.evaluate("() => typeof window.__xss") == "undefined"
    assert page.evaluate(FIND_PROBLEMS, list(PACKAGE_SCRIPTS)) == []
    text = page.inner_text("body")
    for payload in visible:
        assert payload in text, f"{payload!r} is not shown as text"
    assert violations == []


def test_every_model_written_field_of_a_submission_shows_as_text(
    stored: Stored, serve: Callable[..., Served], page: Any
) -> None:
    served = serve(stored.root)
    visit(page, served.url + submission_path(stored.first, EVIL_TEAM_ID, 1))
    assert EVIL_TEAM_NAME in page.inner_text("h1")
    assert page.inner_text("#user-prompt") == PAYLOAD_LINE
    regions = {
        "the submission": "#submission-body",
        "the metric comments": "#metrics",
        "the judge's reasoning": "#judgment-reasoning",
        "the member answers": "#member-table",
        "the message history": "#transcript",
    }
    for what, selector in regions.items():
        text = page.inner_text(selector)
        for payload in PAYLOADS:
            assert payload in text, f"{what}: {payload!r} is not shown as text"
    assert f"RuntimeError: broken: {PAYLOAD_LINE}" in page.inner_text(".member-error")
    # nothing a model wrote became an element: no image, no link but the page's own
    assert page.locator("main img, main svg, main iframe").count() == 0
    hrefs = page.eval_on_selector_all("main a", "links => links.map(a => a.getAttribute('href'))")
    assert all(href.startswith(("/executions/", "/compare", "/")) for href in hrefs), hrefs
