"""Ctrl-C at any moment of `mixseek exec`: exit 130, one line, and no execution or a resumable one.

Real processes receive a real SIGINT: at exact moments (the process sends it to itself at a
named point, see run_guarded.py), and from outside at moments chosen by what the process has
printed so far (its imports under `python -X importtime`, then its event lines).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .db import rows
from .scripted import World, write_workspace

RUNNER = Path(__file__).parent / "run_guarded.py"
BOARD = "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"
EVENT_LINE = re.compile(r"^\d\d:\d\d:\d\d [a-z_]+")
IMPORT_LINE = "import time:"
NOTHING_STARTED = "interrupted: no execution was started"
PROMPT = "最良の回答を"


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """stderr without the event log and import timings: what is said about the interrupt."""
        return [
            line
            for line in self.stderr.splitlines()
            if line.strip() and not EVENT_LINE.match(line) and not line.startswith(IMPORT_LINE)
        ]


def guarded(*args: str, env: dict[str, str] | None = None) -> Outcome:
    done = subprocess.run(
        [sys.executable, str(RUNNER), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )
    return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def reference_board(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, ...]]:
    ws = write_workspace(tmp_path_factory.mktemp("reference") / "ws", max_rounds=2)
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", PROMPT, "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return rows(ws / "mixseek.db", BOARD)


def executions(ws: Path) -> list[tuple[object, ...]]:
    db = ws / "mixseek.db"
    return rows(db, "SELECT execution_id, status FROM executions") if db.exists() else []


def check_interrupted(outcome: Outcome, ws: Path) -> str | None:
    """The one-line contract of an interrupt, checked against the store; the execution to
    resume, if one was left resumable."""
    assert outcome.returncode == 130, outcome.stderr
    assert "Traceback" not in outcome.stderr
    (line,) = outcome.lines
    stored = executions(ws)
    if line == NOTHING_STARTED:
        assert stored == []
        return None
    ((execution_id, status),) = stored
    if line.startswith("interrupted: resume with: "):
        assert line == f"interrupted: resume with: mixseek exec --resume {execution_id} -w {ws}"
        assert status == "interrupted"  # marked by the process itself, not left running
        return str(execution_id)
    assert line == (
        f"interrupted: execution {execution_id} had already ended (completed); "
        f"see: mixseek runs show {execution_id} -w {ws}"
    )
    assert status == "completed"
    return None


def resume_completes(ws: Path, execution_id: str, board: list[tuple[object, ...]]) -> None:
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", "--resume", execution_id, "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "completed"
    assert rows(ws / "mixseek.db", BOARD) == board


# what the store holds after a Ctrl-C at each point: nothing, an interrupted or a completed execution
POINTS = {
    "config": "none",
    "scan": "none",
    "store-check": "none",
    "open:1": "none",
    "build": "none",
    "open:2": "interrupted",
    "create": "interrupted",
    "created": "interrupted",
    "round:1": "interrupted",
    "round:2": "interrupted",
    "finished": "completed",
    "summary": "completed",
}


@pytest.mark.parametrize("point", list(POINTS))
def test_ctrl_c_at_each_moment_of_an_execution(
    tmp_path: Path, point: str, reference_board: list[tuple[object, ...]]
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    outcome = guarded("exec", PROMPT, "-w", str(ws), "-f", "json", env={"INTERRUPT_AT": point})
    execution_id = check_interrupted(outcome, ws)
    expected = POINTS[point]
    if expected == "none":
        assert outcome.lines == [NOTHING_STARTED]
    else:
        assert [status for _, status in executions(ws)] == [expected]
    if execution_id is not None:
        resume_completes(ws, execution_id, reference_board)


def test_ctrl_c_as_the_final_status_is_written_leaves_it_finished_or_resumable(
    tmp_path: Path, reference_board: list[tuple[object, ...]]
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    outcome = guarded("exec", PROMPT, "-w", str(ws), "-f", "json", env={"INTERRUPT_AT": "finish"})
    execution_id = check_interrupted(outcome, ws)
    if execution_id is not None:
        resume_completes(ws, execution_id, reference_board)


def test_ctrl_c_while_a_resume_claims_the_execution_leaves_it_resumable(
    tmp_path: Path, reference_board: list[tuple[object, ...]]
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    first = guarded("exec", PROMPT, "-w", str(ws), "-f", "json", env={"INTERRUPT_AT": "round:2"})
    execution_id = check_interrupted(first, ws)
    assert execution_id is not None
    again = guarded(
        "exec", "--resume", execution_id, "-w", str(ws), "-f", "json", env={"INTERRUPT_AT": "claim"}
    )
    assert check_interrupted(again, ws) == execution_id
    resume_completes(ws, execution_id, reference_board)


Trigger = Callable[[int, str], bool]


def _interrupt_after(command: list[str], trigger: Trigger | None) -> tuple[Outcome, int]:
    """Run `command` under `python -X importtime`. Once the guard is imported, every stderr line
    goes to `trigger(n, line)` (n counts the lines since); SIGINT is sent when it first says so.
    Returns the outcome and how many import lines followed the guard's."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    stdout: list[str] = []
    reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read() if proc.stdout else ""))
    reader.start()
    seen: list[str] = []
    after_guard, imports, sent = -1, 0, False
    for line in proc.stderr:
        seen.append(line)
        if after_guard >= 0:
            after_guard += 1
            imports += line.startswith(IMPORT_LINE)
            if trigger is not None and not sent and trigger(after_guard, line):
                proc.send_signal(signal.SIGINT)
                sent = True
        elif line.startswith(IMPORT_LINE) and line.rstrip().endswith(" mixseek.cli.entry"):
            after_guard = 0  # every import from here on happens inside the guard
    proc.wait(timeout=300)
    reader.join()
    return Outcome(proc.returncode, "".join(stdout), "".join(seen)), imports


def _at_line(n: int) -> Trigger:
    return lambda index, line: index >= n


def _at_event(text: str) -> Trigger:
    return lambda index, line: bool(EVENT_LINE.match(line)) and text in line


def test_ctrl_c_from_outside_at_many_moments(
    tmp_path: Path, reference_board: list[tuple[object, ...]]
) -> None:
    def command(ws: Path) -> list[str]:
        return [str(RUNNER), "exec", PROMPT, "-w", str(ws), "-f", "json"]

    whole = write_workspace(tmp_path / "whole", max_rounds=2)
    complete, imports = _interrupt_after(command(whole), None)
    assert complete.returncode == 0, complete.stderr
    assert imports > 100
    moments: dict[str, Trigger] = {
        "first import": _at_line(1),
        "imports, a third": _at_line(imports // 3),
        "imports, two thirds": _at_line(2 * imports // 3),
        "last import": _at_line(imports),
        **{
            event: _at_event(event)
            for event in (
                "execution_started",
                "round_started round=1",
                "team_round_finished",
                "team_decided",
                "round_started round=2",
                "execution_stopping",
                "execution_finished",
            )
        },
    }
    said: set[str] = set()
    for number, (moment, trigger) in enumerate(moments.items()):
        ws = write_workspace(tmp_path / f"moment-{number}", max_rounds=2)
        outcome, _ = _interrupt_after(command(ws), trigger)
        if outcome.returncode == 0:  # it finished before the signal landed
            assert [status for _, status in executions(ws)] == ["completed"], moment
            said.add("(finished)")
            continue
        execution_id = check_interrupted(outcome, ws)
        said.add(outcome.lines[0].split(":")[1].split()[0])
        if execution_id is not None:
            resume_completes(ws, execution_id, reference_board)
    # the moments spread over start-up and the run: some found nothing started, some a resumable run
    assert {"no", "resume"} <= said, said


def test_ctrl_c_while_the_cli_imports(tmp_path: Path) -> None:
    """`python -m mixseek.cli` (the installed `mixseek` runs the same entry point)."""
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    outcome, _ = _interrupt_after(["-m", "mixseek.cli", "runs", "list", "-w", str(ws)], _at_line(1))
    assert outcome.returncode == 130, outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert outcome.lines == [NOTHING_STARTED]


def test_an_interrupt_wrapped_by_python_is_still_an_interrupt() -> None:
    # a Ctrl-C inside `__set_name__` while an import defines a class reaches the guard as a
    # RuntimeError caused by the KeyboardInterrupt (seen in CI during pydantic-ai's imports)
    code = (
        "from mixseek.cli.interrupts import run_guarded\n"
        "class Name:\n"
        "    def __set_name__(self, owner, name):\n"
        "        raise KeyboardInterrupt\n"
        "def body():\n"
        "    class Owner:\n"
        "        field = Name()\n"
        "run_guarded(body)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == NOTHING_STARTED + "\n"


def test_an_error_that_is_not_an_interrupt_keeps_its_traceback() -> None:
    code = (
        "from mixseek.cli.interrupts import run_guarded\n"
        "def body():\n"
        "    raise RuntimeError('boom')\n"
        "run_guarded(body)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "RuntimeError: boom" in done.stderr


def test_an_interrupt_handled_inside_code_run_from_a_string_still_exits_130(tmp_path: Path) -> None:
    # dataclasses and namedtuple define their methods with exec/eval of a string: a Ctrl-C that
    # lands in one (as a module imports) made CPython kill `python -m mixseek.cli` with SIGINT at
    # exit, after the guard had handled it and printed its line
    (tmp_path / "interrupted_in_exec.py").write_text(
        "from mixseek.cli.entry import leave, run_guarded\n"
        "def body():\n"
        "    exec('raise KeyboardInterrupt')\n"
        "try:\n"
        "    run_guarded(body)\n"
        "except SystemExit as exc:\n"
        "    leave(exc.code)\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "interrupted_in_exec"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (130, NOTHING_STARTED + "\n")
