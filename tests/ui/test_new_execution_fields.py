"""The "New execution" form's reference answer and execution id, over HTTP on a real dashboard:
the same meaning and rules as `mixseek exec --reference` and `--execution-id`.

Executions run as real `mixseek exec` processes with the scripted models of tests/e2e/scripted.py;
a gate holds their leaders in round 2, so the test sees the process while it runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from mixseek.storage.aggregation_store import AggregationStore
from ui.actions_support import (
    RUNNER,
    TWO_ROUNDS,
    Browserless,
    Gate,
    actions_workspace,
    gated,
    scripted_argv,
    status_becomes,
    wait_until,
)
from ui.conftest import Served
from ui.html_page import parse

REFERENCE = "最良の案は B です。\r\n理由: 費用が最も低い。"
STORED_REFERENCE = "最良の案は B です。\n理由: 費用が最も低い。"


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from gated(tmp_path, monkeypatch)


@pytest.fixture
def client() -> Iterator[Callable[[Served], Browserless]]:
    made: list[Browserless] = []

    def make(served: Served) -> Browserless:
        made.append(Browserless(served.url))
        return made[-1]

    yield make
    for one in made:
        one.close()


def ui_logs(ws: Path) -> list[str]:
    return sorted(p.name for p in (ws / "logs").glob("ui-*.log")) if (ws / "logs").exists() else []


def test_the_form_asks_for_a_reference_answer_and_an_execution_id(
    tmp_path: Path, serve: Callable[..., Served], client: Callable[[Served], Browserless]
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    form = parse(client(serve(ws)).get("/new").text).find("form", class_="new-execution")
    reference = form.find("textarea", name="reference")
    assert (reference.attrs["id"], reference.text) == ("reference", "")
    assert "required" not in reference.attrs
    execution_id = form.find("input", name="execution_id")
    assert execution_id.attrs["value"] == "" and "required" not in execution_id.attrs
    assert "mixseek exec --reference" in form.by_id("reference-help").text
    assert "mixseek exec --execution-id" in form.by_id("execution-id-help").text


def test_a_start_with_both_runs_under_that_id_with_that_reference(
    tmp_path: Path, serve: Callable[..., Served], client: Callable[[Served], Browserless], gate: Gate
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    fields = {"prompt": "a task", "config": TWO_ROUNDS, "reference": REFERENCE, "execution_id": " my-run-1 "}
    started = browserless.post("/executions", fields)
    assert started.status_code == 303
    assert started.headers["location"] == "/executions/my-run-1"

    wait_until("the execution to reach round 2", lambda: True if gate.reached else None)
    # the answer key reaches the process as a file it inherits, not on its command line
    (process,) = [
        p for p in psutil.Process().children(recursive=True) if str(RUNNER) in " ".join(p.cmdline())
    ]
    command = process.cmdline()
    assert "--reference-file" in command and "--reference" not in command
    assert not any("最良の案" in arg for arg in command)
    gate.open()
    done = status_becomes(ws, "my-run-1", "completed")
    assert done.reference == STORED_REFERENCE
    assert ui_logs(ws) == ["ui-my-run-1.log"]


def test_a_blank_reference_is_no_reference(
    tmp_path: Path, serve: Callable[..., Served], client: Callable[[Served], Browserless]
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    fields = {"prompt": "a task", "config": TWO_ROUNDS, "reference": " \r\n", "execution_id": "no-key-1"}
    started = browserless.post("/executions", fields)
    assert (started.status_code, started.headers["location"]) == (303, "/executions/no-key-1")
    assert status_becomes(ws, "no-key-1", "completed").reference is None


async def _stored(db: Path, execution_id: str) -> None:
    async with AggregationStore(db) as store:
        await store.create_execution(execution_id, "an earlier task", {})
        await store.finish_execution(execution_id, "completed", None)


RULE = "use lower-case letters, digits and '-' (at most 64, starting and ending with a letter or digit)"


@pytest.mark.parametrize(
    ("execution_id", "message"),
    [
        ("My_Run", f"execution id: 'My_Run': {RULE}"),
        ("run-", f"execution id: 'run-': {RULE}"),
        ("x" * 65, f"execution id: '{'x' * 65}': {RULE}"),
        ("taken-1", "execution id: 'taken-1' exists already in {db}"),
    ],
)
def test_a_bad_or_taken_execution_id_is_refused_with_the_form_kept(
    tmp_path: Path,
    serve: Callable[..., Served],
    client: Callable[[Served], Browserless],
    execution_id: str,
    message: str,
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    asyncio.run(_stored(ws / "mixseek.db", "taken-1"))
    browserless = client(serve(ws, exec_argv=scripted_argv()))
    fields = {"prompt": "a task", "config": TWO_ROUNDS, "reference": REFERENCE, "execution_id": execution_id}
    response = browserless.post("/executions", fields)
    assert response.status_code == 400
    page = parse(response.text)
    assert page.by_id("form-error").text == message.format(db=ws / "mixseek.db")
    assert page.find("textarea", name="reference").raw_text == STORED_REFERENCE
    assert page.find("input", name="execution_id").attrs["value"] == execution_id
    assert page.find("option", value=TWO_ROUNDS).attrs.get("selected") is not None
    assert ui_logs(ws) == []  # no process was started
