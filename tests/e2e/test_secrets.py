"""A provider that echoes secrets: no encoding of them reaches an output, a log, a row of the
store, an export, a dashboard page or a span."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import httpx
import pytest
from pydantic_ai import models
from typer.testing import CliRunner

from fake_openai import encodings, fake_openai, write_fake_workspace
from mixseek.cli.app import app

KEY = "sk-test-SECRETVALUE123"
# what must not appear, down to a prefix a cropped table cell would show
FRAGMENT = "SECRETVALUE"
REDACTED = "[REDACTED:OPENAI_API_KEY]"


@pytest.fixture(autouse=True)
def _local_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake provider listens on 127.0.0.1: these tests may send it requests."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)


def text_cells(db: Path) -> list[tuple[str, str, str]]:
    """(table, column, value) of every non-null text or JSON value in the store."""
    conn = duckdb.connect(str(db), read_only=True)
    try:
        columns = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE data_type IN ('VARCHAR', 'JSON') ORDER BY ALL"
        ).fetchall()
        cells = []
        for table, column in columns:
            query = f'SELECT CAST("{column}" AS VARCHAR) FROM "{table}" WHERE "{column}" IS NOT NULL'
            cells += [(table, column, value) for (value,) in conn.execute(query).fetchall()]
        return cells
    finally:
        conn.close()


def run_exec(tmp_path: Path, output_format: str, **server_options: bool) -> tuple[str, Path]:
    """`mixseek exec` against the echoing provider; everything it wrote or printed, and the store."""
    ws = write_fake_workspace(tmp_path / "ws", max_rounds=2, max_retries=1)
    with fake_openai(echo_auth=True, **server_options) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY}
        result = CliRunner().invoke(app, ["exec", "調べて", "-w", str(ws), "-f", output_format], env=env)
        assert all(request["_auth"] == f"Bearer {KEY}" for request in server.requests)
    assert "Traceback" not in result.output
    logs = [*sorted((ws / "logs").glob("*.jsonl")), ws / "logs" / "mixseek.log"]
    written = "\n".join(path.read_text(encoding="utf-8") for path in logs)
    return "\n".join([result.stdout, result.stderr, written]), ws / "mixseek.db"


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_key_echoed_in_answers_is_redacted_everywhere(tmp_path: Path, output_format: str) -> None:
    printed_and_logged, db = run_exec(tmp_path, output_format)
    cells = text_cells(db)
    assert [cell for cell in cells if FRAGMENT in cell[2]] == []
    assert FRAGMENT not in printed_and_logged
    # the echo did happen: the answers were stored and printed with the key replaced
    redacted = {(table, column) for table, column, value in cells if REDACTED in value}
    assert {("leader_board", "submission_content"), ("round_history", "message_history")} <= redacted
    assert ("round_status", "judgment_reasoning") in redacted  # the judgment ran (max_rounds = 2)
    assert REDACTED in printed_and_logged


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_key_echoed_in_error_responses_is_redacted_everywhere(tmp_path: Path, output_format: str) -> None:
    printed_and_logged, db = run_exec(tmp_path, output_format, fail_always=True)
    cells = text_cells(db)
    assert [cell for cell in cells if FRAGMENT in cell[2]] == []
    assert FRAGMENT not in printed_and_logged
    errors = [value for table, column, value in cells if (table, column) == ("round_status", "error_message")]
    assert len(errors) == 1 and REDACTED in errors[0]
    assert REDACTED in printed_and_logged


# -- every encoding, every sink, through the CLI in subprocesses -----------------------------

SECRETS = {
    "OPENAI_API_KEY": "sk-proj-SECRETVALUE123",
    "MY_DB_PASSWORD": 'p"a\\ss/w0rd!<&>x',
    "APP_SECRET_TOKEN": "пароль-秘密-1234567",
}
# a piece of each secret that each of its encodings keeps, however often escaped: a leak in any
# form shows it (the encodings themselves are checked one by one too)
KEPT = {"OPENAI_API_KEY": "SECRETVALUE", "MY_DB_PASSWORD": "w0rd", "APP_SECRET_TOKEN": "-1234567"}
URL_LINE = re.compile(r"^mixseek ui: .+ on (?P<url>http://\S+/) \(Ctrl-C to stop\)$")


def mixseek(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it: a process of its own, its streams as text."""
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=600,
    )


def crawl_dashboard(ws: Path, env: dict[str, str], extra: list[str]) -> dict[str, str]:
    """Every page `mixseek ui` links to from its runs page (and the `extra` paths), path -> HTML,
    and what the server wrote on its stderr."""
    errors = ws.parent / "ui.stderr"
    with errors.open("w", encoding="utf-8") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mixseek.cli", "ui", "-w", str(ws), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            encoding="utf-8",
            env=env,
        )
    try:
        assert proc.stdout is not None
        match = URL_LINE.match(proc.stdout.readline().rstrip("\n"))
        assert match
        base = match["url"].rstrip("/")
        pages: dict[str, str] = {}
        seen = {"/"}  # paths: a page's other sortings and filters show the same texts
        queue = ["/", *extra]
        with httpx.Client(base_url=base, timeout=120) as client:
            while queue:
                link = queue.pop()
                response = client.get(link)
                assert response.status_code == 200, (link, response.status_code)
                pages[link] = response.text
                for found in re.findall(r'href="(/[^"#]*)', response.text):
                    found = html.unescape(found)
                    path = found.split("?")[0]
                    if path not in seen and not path.startswith("/static/") and not path.endswith("/stream"):
                        seen.add(path)
                        queue.append(found)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    return {**pages, "ui stderr": errors.read_text(encoding="utf-8")}


def leaks(sinks: dict[str, str], secrets: dict[str, str]) -> list[tuple[str, str, str]]:
    """(sink, variable, encoding) of each form of each secret found in a sink."""
    found = []
    for sink, text in sinks.items():
        shown = {text, html.unescape(text)}  # a page or an HTML export escapes what it shows
        for name, secret in secrets.items():
            forms = {**encodings(secret), "kept piece": KEPT[name]}
            found += [(sink, name, kind) for kind, form in forms.items() if any(form in t for t in shown)]
    return found


def cli_env(base_url: str, secrets: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "OPENAI_BASE_URL": base_url, **secrets, "PYTHONIOENCODING": "utf-8"}


def read_sinks(ws: Path, env: dict[str, str]) -> dict[str, str]:
    """What `runs list/show/export` print and what the dashboard serves, for each execution."""
    listed = mixseek("runs", "list", "-w", str(ws), "-f", "json", env=env)
    assert listed.returncode == 0, listed.stderr
    ids = [entry["execution_id"] for entry in json.loads(listed.stdout)]
    sinks = {"runs list": listed.stdout + listed.stderr}
    for execution_id in ids:
        for args in (
            ("show", "-f", "text"),
            ("show", "-f", "json"),
            ("export", "--format", "json"),
            ("export", "--format", "markdown"),
            ("export", "--format", "html"),
        ):
            result = mixseek("runs", args[0], execution_id, *args[1:], "-w", str(ws), env=env)
            assert result.returncode == 0, result.stderr
            sinks[f"runs {' '.join(args)} {execution_id}"] = result.stdout + result.stderr
    compare = [f"/compare?a={ids[0]}&b={ids[-1]}"]
    pages = crawl_dashboard(ws, env, compare)
    assert any("/teams/" in path for path in pages)  # the submission pages, transcripts included
    sinks.update({f"page {path}": text for path, text in pages.items()})
    return sinks


def write_sinks(ws: Path) -> dict[str, str]:
    """Every text cell of the store and every log file of the workspace."""
    cells = text_cells(ws / "mixseek.db")
    sinks = {f"db {table}.{column} #{i}": value for i, (table, column, value) in enumerate(cells)}
    for path in sorted((ws / "logs").iterdir()):
        sinks[f"log {path.name}"] = path.read_text(encoding="utf-8")
    return sinks


def test_each_encoding_of_each_secret_is_redacted_in_every_sink(tmp_path: Path) -> None:
    """The provider echoes three secrets — an API key, a password with quotes, a backslash and
    HTML characters, a non-ASCII token — raw, JSON-, \\u-, repr-escaped and percent-encoded in its
    answers, tool-call arguments and errors, and the key as the answer's `model` and `id`: no
    cell, log, stream, export, page or span holds any of them."""
    ws = write_fake_workspace(tmp_path / "ws", max_rounds=2, max_retries=1)
    sinks: dict[str, str] = {}
    echoed = [SECRETS["MY_DB_PASSWORD"], SECRETS["APP_SECRET_TOKEN"]]
    for run, output_format, options in [(0, "text", {}), (1, "json", {"fail_always": True})]:
        with fake_openai(echo_secrets=echoed, **options) as server:
            env = cli_env(server.base_url, SECRETS)
            result = mixseek(
                "exec", "調べて", "-w", str(ws), "-f", output_format, "--otel", "console", env=env
            )
            assert all(
                request["_auth"] == f"Bearer {SECRETS['OPENAI_API_KEY']}" for request in server.requests
            )
        assert result.returncode in ((0,) if run == 0 else (1, 2)), result.stderr
        assert not re.search("^Traceback", result.stderr, re.MULTILINE)  # (spans quote theirs in JSON)
        sinks[f"exec {run} stdout"], sinks[f"exec {run} stderr (spans)"] = result.stdout, result.stderr
        assert '"mixseek.execution_id"' in result.stderr  # the spans were printed
    # with the key the provider returned as the model's name and the answer's id replaced
    assert '"gen_ai.response.model": "[REDACTED:OPENAI_API_KEY]"' in sinks["exec 0 stderr (spans)"]
    assert '"gen_ai.response.id": "[REDACTED:OPENAI_API_KEY]"' in sinks["exec 0 stderr (spans)"]
    sinks.update(write_sinks(ws))
    sinks.update(read_sinks(ws, env))
    assert leaks(sinks, SECRETS) == []
    # the echoes did arrive and were replaced: in answers, scores and errors
    stored: dict[str, str] = {}
    for sink, value in sinks.items():
        if sink.startswith("db "):
            column = sink.split(" #")[0]
            stored[column] = stored.get(column, "") + value
    for name in SECRETS:
        assert f"[REDACTED:{name}]" in stored["db leader_board.score_details"], name
        assert f"[REDACTED:{name}]" in stored["db round_status.error_message"], name
        assert f"[REDACTED:{name}]" in stored["db round_history.message_history"], name


def test_what_a_store_kept_of_a_secret_set_later_is_redacted_when_shown(tmp_path: Path) -> None:
    """A store written while the password and the token were not set (or by a version that missed
    an encoding) holds them; `runs show`, `runs export` and the dashboard, run with them set, show
    none of them — the transcript's tool-call arguments, stored `\\u`-escaped, decoded included."""
    ws = write_fake_workspace(tmp_path / "ws", max_rounds=2, max_retries=1)
    later = {name: SECRETS[name] for name in ("MY_DB_PASSWORD", "APP_SECRET_TOKEN")}
    with fake_openai(echo_secrets=list(later.values())) as server:
        key_only = cli_env(server.base_url, {"OPENAI_API_KEY": SECRETS["OPENAI_API_KEY"]})
        result = mixseek("exec", "調べて", "-w", str(ws), "-f", "json", env=key_only)
        env = cli_env(server.base_url, SECRETS)
    assert result.returncode == 0, result.stderr
    kept = {kind for _, name, kind in leaks(write_sinks(ws), later) if name == "APP_SECRET_TOKEN"}
    assert {"raw", "u-escaped"} <= kept  # what the read side must redact
    assert leaks(read_sinks(ws, env), SECRETS) == []
