"""Starting, stopping and resuming executions over HTTP, on a real dashboard server.

Executions run as real `mixseek exec` processes started by the dashboard, with the scripted models
of tests/e2e/scripted.py (tests/e2e/run_scripted.py); a gate holds their leaders in round 2 so
that a Stop finds them running, whatever the machine's speed.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.lease import ExecutionOwner
from mixseek.ui.settings import default_exec_argv
from ui.actions_support import (
    TWO_ROUNDS,
    Browserless,
    Gate,
    actions_workspace,
    gated,
    record,
    scripted_argv,
    status_becomes,
    wait_until,
)
from ui.conftest import Served
from ui.html_page import parse

PROMPT = "三つの案を比べて\r\n最良のものを選んでください"
STORED_PROMPT = "三つの案を比べて\n最良のものを選んでください"
EXECUTION_URL = re.compile(r"/executions/([0-9a-z-]+)")

Serve = Callable[..., Served]


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from gated(tmp_path, monkeypatch)


@pytest.fixture
def client(request: pytest.FixtureRequest) -> Iterator[Callable[[Served], Browserless]]:
    made: list[Browserless] = []

    def make(served: Served) -> Browserless:
        made.append(Browserless(served.url))
        return made[-1]

    yield make
    for one in made:
        one.close()


def ui_logs(ws: Path) -> list[str]:
    return sorted(p.name for p in (ws / "logs").glob("ui-*.log")) if (ws / "logs").exists() else []


def started_id(response_location: str) -> str:
    match = EXECUTION_URL.fullmatch(response_location)
    assert match, response_location
    return match.group(1)


def test_new_form_offers_the_orchestrator_configs(tmp_path: Path, serve: Serve, client: Callable) -> None:
    ws = actions_workspace(tmp_path / "ws")
    (ws / "configs" / "broken.toml").write_text("[orchestrator\n", encoding="utf-8")
    browserless = client(serve(ws))
    response = browserless.get("/new")
    assert response.status_code == 200
    page = parse(response.text)
    options = page.find("select", name="config").find_all("option")
    # not evaluator.toml, judgment.toml (no [orchestrator] table) nor broken.toml (not TOML)
    assert [o.attrs["value"] for o in options] == ["orchestrator.toml", TWO_ROUNDS]
    assert [o.text for o in options] == ["configs/orchestrator.toml", f"configs/{TWO_ROUNDS}"]
    assert "selected" in options[0].attrs
    form = page.find("form", class_="new-execution")
    assert (form.attrs["method"], form.attrs["action"]) == ("post", "/executions")
    assert form.find("input", name="csrf_token").attrs["value"] == browserless.csrf
    assert form.find("textarea", name="prompt").text == ""


def test_new_form_without_configs_says_what_to_do(tmp_path: Path, serve: Serve, client: Callable) -> None:
    (tmp_path / "empty").mkdir()
    response = client(serve(tmp_path / "empty")).get("/new")
    assert response.status_code == 200
    assert parse(response.text).by_id("form-error").text == (
        f"No orchestrator config in {tmp_path / 'empty' / 'configs'} (a *.toml file with an "
        "[orchestrator] table): run mixseek init."
    )


@pytest.mark.parametrize(
    ("prompt", "config", "message"),
    [
        ("", "orchestrator.toml", "prompt: must not be empty"),
        (" \r\n\t", TWO_ROUNDS, "prompt: must not be empty"),
        ("a task", "evaluator.toml", "config: no orchestrator config 'evaluator.toml' in {configs}"),
        (
            "a task",
            "../configs/orchestrator.toml",
            "config: no orchestrator config '../configs/orchestrator.toml' in {configs}",
        ),
        ("a task", "", "config: no orchestrator config '' in {configs}"),
    ],
)
def test_start_refuses_bad_input_and_shows_the_form_again(
    tmp_path: Path, serve: Serve, client: Callable, prompt: str, config: str, message: str
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    response = browserless.post("/executions", {"prompt": prompt, "config": config})
    assert response.status_code == 400
    page = parse(response.text)
    assert page.by_id("form-error").text == message.format(configs=ws / "configs")
    assert page.find("textarea", name="prompt").raw_text == prompt.replace("\r\n", "\n")
    assert page.find("input", name="csrf_token").attrs["value"] == browserless.csrf
    assert ui_logs(ws) == []  # no process was started


def test_start_stop_resume(tmp_path: Path, serve: Serve, client: Callable, gate: Gate) -> None:
    ws = actions_workspace(tmp_path / "ws")
    browserless = client(serve(ws, exec_argv=scripted_argv()))

    started = browserless.post("/executions", {"prompt": PROMPT, "config": TWO_ROUNDS})
    assert started.status_code == 303
    execution_id = started_id(started.headers["location"])
    page_url = f"/executions/{execution_id}"
    wait_until("the execution to reach round 2", lambda: True if gate.reached else None)
    running = record(ws, execution_id)
    assert running is not None
    assert (running.status, running.user_prompt) == ("running", STORED_PROMPT)
    assert running.config["orchestrator_file"] == str(ws / "configs" / TWO_ROUNDS)
    page = parse(browserless.get(page_url).text)
    assert page.by_id("execution-status").text == "running"
    assert page.by_id("stop").attrs["type"] == "submit"

    stopped = browserless.post(f"{page_url}/stop")
    assert stopped.status_code == 303
    notice = stopped.headers["location"].removeprefix(f"{page_url}?notice=")
    assert notice in ("stopped", "stopping")  # "stopping": it took over 15 s to exit (a loaded box)
    status_becomes(ws, execution_id, "interrupted")
    page = parse(browserless.get(stopped.headers["location"]).text)
    assert page.by_id("execution-notice").text.startswith(
        "Stopped: the execution is interrupted." if notice == "stopped" else "Stop sent (Ctrl-C)"
    )
    assert page.by_id("execution-status").text == "interrupted"
    assert page.by_id("resume").attrs["type"] == "submit"

    gate.open()
    resumed = browserless.post(f"{page_url}/resume")
    assert resumed.status_code == 303
    assert resumed.headers["location"] in (f"{page_url}?notice=resumed", f"{page_url}?notice=resuming")
    status_becomes(ws, execution_id, "completed")
    # resumed with the config it was started with: two rounds, not the default's four
    db = ws / "mixseek.db"
    assert rows(db, f"SELECT max(round_number) FROM leader_board WHERE execution_id = '{execution_id}'") == [
        (2,)
    ]
    assert ui_logs(ws) == [f"ui-{execution_id}.log"]


def test_a_start_that_fails_shows_why_on_the_execution_page(
    tmp_path: Path, serve: Serve, client: Callable
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    team = "agents/<img src=x onerror=alert(1)>.toml"
    (ws / "configs" / "broken.toml").write_text(
        f'[orchestrator]\nmax_rounds = 1\n[[orchestrator.teams]]\nconfig = "{team}"\n', encoding="utf-8"
    )
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    started = browserless.post("/executions", {"prompt": "a task", "config": "broken.toml"})
    assert started.status_code == 303
    execution_id = started_id(started.headers["location"])

    def ended_page() -> str | None:
        response = browserless.get(started.headers["location"])
        assert response.status_code == 200
        return response.text if "not started" in response.text else None

    html = wait_until("the start to fail", ended_page)
    page = parse(html)
    assert page.by_id("execution-status").text == "not started"
    assert page.by_id("launch-output").text == (
        f"error: {ws / 'configs' / 'broken.toml'}: orchestrator.teams[0].config: team file not found: "
        f"{ws / 'configs' / team}"
    )
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert record(ws, execution_id) is None


HOLD = """
import os, pathlib, sys, time
print("loading the configs", flush=True)
while not pathlib.Path(os.environ["HOLD_FILE"]).exists():
    time.sleep(0.05)
sys.exit("error: <b>bad</b> config")
"""


def test_the_execution_page_says_starting_until_the_process_has_written_the_execution(
    tmp_path: Path, serve: Serve, client: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    hold = tmp_path / "hold"
    monkeypatch.setenv("HOLD_FILE", str(hold))
    browserless = client(serve(ws, exec_argv=[sys.executable, "-c", HOLD]))
    started = browserless.post("/executions", {"prompt": "a task", "config": "orchestrator.toml"})
    location = started.headers["location"]
    log = ws / "logs" / f"ui-{started_id(location)}.log"
    wait_until("the process to start", lambda: True if log.exists() and log.read_text() else None)

    starting = browserless.get(location)
    assert starting.status_code == 200
    assert starting.headers["refresh"] == "1"  # the browser reloads it
    page = parse(starting.text)
    assert page.by_id("execution-status").text == "starting"
    assert page.by_id("launch-output").text == "loading the configs"

    hold.touch()
    html = wait_until(
        "the process to end",
        lambda: r.text if "not started" in (r := browserless.get(location)).text else None,
    )
    assert parse(html).by_id("launch-output").text == "error: <b>bad</b> config"
    assert "&lt;b&gt;bad&lt;/b&gt;" in html
    assert "refresh" not in browserless.get(location).headers


def test_an_unknown_execution_is_a_404(tmp_path: Path, serve: Serve, client: Callable) -> None:
    ws = actions_workspace(tmp_path / "ws")
    browserless = client(serve(ws))
    for path in ("/executions/nope-1", "/executions/nope-1/stop", "/executions/nope-1/resume"):
        response = browserless.get(path) if path.count("/") == 2 else browserless.post(path)
        assert response.status_code == 404, path


def _completed_execution(ws: Path) -> str:
    with override_models(World().models()):
        result = CliRunner().invoke(
            app, ["exec", "a task", "-w", str(ws), "-c", str(ws / "configs" / TWO_ROUNDS), "-f", "json"]
        )
    assert result.exit_code == 0, result.output
    ((execution_id,),) = rows(ws / "mixseek.db", "SELECT execution_id FROM executions")
    return str(execution_id)


async def _owned(ws: Path, execution_id: str, owner: ExecutionOwner) -> None:
    async with AggregationStore(ws / "mixseek.db") as store:
        await store.create_execution(execution_id, "a task", {}, owner=owner)


def test_stop_and_resume_say_why_they_did_nothing(tmp_path: Path, serve: Serve, client: Callable) -> None:
    ws = actions_workspace(tmp_path / "ws")
    done = _completed_execution(ws)
    # running in a process of another host (its heartbeat is fresh): this dashboard cannot signal it
    asyncio.run(_owned(ws, "far-1", ExecutionOwner(4242, "elsewhere.example", "t1", None)))
    # owned by a process of this host that is gone (its pid now names another process)
    asyncio.run(
        _owned(ws, "gone-1", ExecutionOwner(os.getpid(), ExecutionOwner.this_process().host, "t2", 1.0))
    )
    browserless = client(serve(ws, exec_argv=scripted_argv()))

    expected = {
        (done, "stop"): ("not-running", "Nothing to stop: no process runs this execution."),
        (done, "resume"): ("not-resumable", "Not resumed: only an interrupted execution can be resumed."),
        ("far-1", "stop"): (
            "elsewhere",
            "Not stopped: its process runs on another host. Stop it there (Ctrl-C in its terminal).",
        ),
        ("far-1", "resume"): ("running", "Not resumed: the execution is running."),
        ("gone-1", "stop"): ("not-running", "Nothing to stop: no process runs this execution."),
    }
    for (execution_id, action), (notice, text) in expected.items():
        response = browserless.post(f"/executions/{execution_id}/{action}")
        assert response.status_code == 303
        assert response.headers["location"] == f"/executions/{execution_id}?notice={notice}"
        page = parse(browserless.get(response.headers["location"]).text)
        assert page.by_id("execution-notice").text == text
    assert record(ws, "far-1").status == "running"  # type: ignore[union-attr]
    assert ui_logs(ws) == []  # nothing was started


def test_stop_signals_no_process_the_lease_does_not_name_exactly(
    tmp_path: Path, serve: Serve, client: Callable
) -> None:
    """An unrelated process of this host has the pid of a lease that does not record its start time
    (as leases written by hand or by old versions), or of one whose start time matches but whose
    command line is another's (this test's): Stop leaves it alone and says why.
    (`test_start_stop_resume` stops a process its lease names.)"""
    ws = actions_workspace(tmp_path / "ws")
    unrelated = subprocess.Popen(["sleep", "60"])
    try:
        me = ExecutionOwner.this_process()
        started = psutil.Process(unrelated.pid).create_time()
        other = replace(me, pid=unrelated.pid, process_started=started)
        asyncio.run(_owned(ws, "nameless-1", ExecutionOwner(unrelated.pid, me.host, "t1", None)))
        asyncio.run(_owned(ws, "other-1", other))
        browserless = client(serve(ws, exec_argv=scripted_argv()))
        expected = {
            "nameless-1": (
                "unverifiable",
                "Not stopped: its lease does not record when its process started and what command it "
                "runs, so the process with that pid cannot be told from another program. Stop it where "
                "it runs (Ctrl-C in its terminal).",
            ),
            "other-1": (
                "another-command",
                "Not stopped: the process with the lease's pid runs another command than the one that "
                "took the execution, so it is another program.",
            ),
        }
        for execution_id, (notice, text) in expected.items():
            response = browserless.post(f"/executions/{execution_id}/stop")
            assert response.status_code == 303
            assert response.headers["location"] == f"/executions/{execution_id}?notice={notice}"
            page = parse(browserless.get(response.headers["location"]).text)
            assert page.by_id("execution-notice").text == text
            assert page.by_id("execution-status").text == "running"
        assert unrelated.poll() is None  # no signal reached it: SIGINT would have ended `sleep`
    finally:
        unrelated.kill()
        unrelated.wait()


def test_a_notice_the_page_does_not_know_shows_nothing(
    tmp_path: Path, serve: Serve, client: Callable
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    done = _completed_execution(ws)
    html = client(serve(ws)).get(f"/executions/{done}?notice=<script>alert(1)</script>").text
    assert 'id="execution-notice"' not in html and "alert(1)" not in html


def test_actions_without_the_csrf_token_are_refused(tmp_path: Path, serve: Serve, client: Callable) -> None:
    ws = actions_workspace(tmp_path / "ws")
    done = _completed_execution(ws)
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    for path, data in (
        ("/executions", {"prompt": "a task", "config": "orchestrator.toml"}),
        (f"/executions/{done}/stop", {}),
        (f"/executions/{done}/resume", {}),
    ):
        browserless.get("/new")  # the CSRF cookie is there; only the form field is missing
        response = browserless.post(path, data, token=False)
        assert response.status_code == 403, path
        assert response.text == "403: CSRF token missing: reload the page and try again\n"
    assert ui_logs(ws) == []


def test_the_default_command_is_this_pythons_mixseek(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run([*default_exec_argv(), "--version"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mixseek ")
