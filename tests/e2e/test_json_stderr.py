"""`mixseek exec --log-format json`: every line on stderr is one JSON object (events, warnings, errors, the
final error line), credentials redacted, and the exit code is the one the text format gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .scripted import write_workspace

RUNNER = Path(__file__).parent / "run_scripted.py"
KEY = "sk-test-STDERRSECRET77"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`mixseek exec` with the scripted models, or as installed when nothing gets as far as a model."""
    program = [str(RUNNER)] if args[0] != "-m" else []
    done = subprocess.run(
        [sys.executable, *program, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "OPENAI_API_KEY": KEY, **(env or {})},
        timeout=300,
    )
    return done.returncode, done.stderr


def json_lines(*args: str, env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]]]:
    """Run in both formats; the exit code (the same in both) and stderr's JSON objects."""
    text_code, text = run(*args, env=env)
    code, stderr = run(*args, "--log-format", "json", env=env)
    assert code == text_code, (text, stderr)
    assert KEY not in stderr and "STDERRSECRET" not in stderr
    lines = [json.loads(line) for line in stderr.splitlines()]  # each one a JSON object
    assert all(isinstance(line, dict) and {"at", "level", "message"} <= line.keys() for line in lines)
    assert len(lines) == len(text.strip().splitlines())  # a line for each line of the text format
    return code, lines


def test_a_successful_run_writes_its_events_as_json(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    code, lines = json_lines("exec", "課題", "-w", str(ws))
    assert code == 0
    finished = [line for line in lines if line.get("kind") == "team_round_finished"]  # the event's fields
    assert sorted((line["team_id"], line["round_number"], line["score"]) for line in finished) == [
        ("alpha", 1, 60.0),
        ("beta", 1, 70.0),
        ("gamma", 1, 50.0),
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["exec", "", "-w", "{ws}"],
        ["exec", "課題", "-w", "{ws}", "--execution-id", KEY],
        ["-m", "mixseek.cli", "exec", "課題", "-w", "{ws}", "--bogus"],  # refused before the command runs
    ],
    ids=["no-prompt", "echoed-key", "usage-error"],
)
def test_bad_input_is_one_json_error_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    code, lines = json_lines(*(a.replace("{ws}", str(ws)) for a in args))
    assert code == 2
    assert lines[0]["level"] == "error"


def test_a_failing_run_writes_its_failures_as_json(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1, max_retries=0)
    code, lines = json_lines("exec", "課題", "-w", str(ws), env={"SCRIPTED_DOWN": "alpha"})
    assert code != 0
    assert any("provider down" in line["message"] for line in lines)


@pytest.mark.parametrize("flag", [["--log-format", "json"], ["--log-format=json"]])
def test_a_ctrl_c_while_loading_is_one_json_line(flag: list[str]) -> None:
    # the loading guard writes its line from the signal handler, before any stream is set up
    code = (
        "import os, signal, sys, time\n"
        f"sys.argv = ['mixseek', 'exec', '課題', *{flag!r}]\n"
        "from mixseek.cli.loading_guard import install\n"
        "install()\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(30)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    (line,) = done.stderr.splitlines()
    record = json.loads(line)
    assert record["level"] == "error"
    assert record["message"] == "interrupted: no execution was started"
    assert record["at"].endswith("+00:00")
