"""An argument that is not UTF-8 (`mixseek exec $'caf\\xe9'`): one line naming it, exit 2.

Python reads such a byte as a lone surrogate, which crashed in the first UTF-8 sink it reached
(DuckDB: "surrogates not allowed"). Every command refuses it before doing anything, paths
included: Linux allows the byte in a file name, but mixseek keeps paths in UTF-8 files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

Arg = str | bytes


def mixseek(
    *args: Arg, env: dict[str, Arg] | None = None, cwd: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args],
        capture_output=True,
        env=environment,  # type: ignore[arg-type]  # bytes values: POSIX takes them as they are
        cwd=cwd,
        timeout=120,
    )


def refused(done: subprocess.CompletedProcess[bytes]) -> str:
    """The one line on stderr of a command that exited 2 and printed nothing else."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@dataclass(frozen=True)
class Case:
    args: Callable[[Path], list[Arg]]
    """The command line, given the workspace."""
    expected: str
    """The line after `error: `."""


def _team(ws: Path) -> str:
    return str(ws / "configs/agents/team-analysts.toml")


def _member(ws: Path) -> str:
    return str(ws / "configs/agents/members/writer.toml")


CASES: dict[str, Case] = {
    "exec PROMPT": Case(
        lambda ws: ["exec", b"caf\xe9", "-w", str(ws)], "PROMPT: not UTF-8 text (byte 0xe9 at offset 3)"
    ),
    "exec --reference": Case(
        lambda ws: ["exec", "a task", "--reference", b"\xfe", "-w", str(ws)],
        "--reference: not UTF-8 text (byte 0xfe at offset 0)",
    ),
    "exec --execution-id": Case(
        lambda ws: ["exec", "a task", "--execution-id", b"run-\xe9", "-w", str(ws)],
        "--execution-id: not UTF-8 text (byte 0xe9 at offset 4)",
    ),
    "exec --resume": Case(
        lambda ws: ["exec", "--resume", b"run-\xff", "-w", str(ws)],
        "--resume: not UTF-8 text (byte 0xff at offset 4)",
    ),
    "exec --prompt-file": Case(
        lambda ws: ["exec", "--prompt-file", b"t\xe4sk.txt", "-w", str(ws)],
        "--prompt-file: not UTF-8 text (byte 0xe4 at offset 1)",
    ),
    "exec --config": Case(
        lambda ws: ["exec", "a task", "-c", b"orch\xe9.toml", "-w", str(ws)],
        "--config: not UTF-8 text (byte 0xe9 at offset 4)",
    ),
    "evaluate PROMPT": Case(
        lambda ws: ["evaluate", b"t\xe9sk", "an answer", "-w", str(ws)],
        "PROMPT: not UTF-8 text (byte 0xe9 at offset 1)",
    ),
    "evaluate SUBMISSION": Case(
        lambda ws: ["evaluate", "a task", "r\xe9sum\xe9 ok".encode() + b" \xe9", "-w", str(ws)],
        "SUBMISSION: not UTF-8 text (byte 0xe9 at offset 12)",
    ),
    "evaluate --reference": Case(
        lambda ws: ["evaluate", "a task", "an answer", "--reference", b"\xc3", "-w", str(ws)],
        "--reference: not UTF-8 text (byte 0xc3 at offset 0)",
    ),
    "team PROMPT": Case(
        lambda ws: ["team", "-c", _team(ws), b"caf\xe9"], "PROMPT: not UTF-8 text (byte 0xe9 at offset 3)"
    ),
    "team --config": Case(
        lambda ws: ["team", "-c", b"team\xe9.toml", "a task"],
        "--config: not UTF-8 text (byte 0xe9 at offset 4)",
    ),
    "member PROMPT": Case(
        lambda ws: ["member", "-c", _member(ws), b"caf\xe9"],
        "PROMPT: not UTF-8 text (byte 0xe9 at offset 3)",
    ),
    "runs show EXECUTION_ID": Case(
        lambda ws: ["runs", "show", b"caf\xe9", "-w", str(ws)],
        "EXECUTION_ID: not UTF-8 text (byte 0xe9 at offset 3)",
    ),
    "runs export EXECUTION_ID": Case(
        lambda ws: ["runs", "export", b"caf\xe9", "-w", str(ws)],
        "EXECUTION_ID: not UTF-8 text (byte 0xe9 at offset 3)",
    ),
    "bench TASKS.jsonl": Case(
        lambda ws: ["bench", b"tasks\xe9.jsonl", "-w", str(ws)],
        "TASKS.jsonl: not UTF-8 text (byte 0xe9 at offset 5)",
    ),
    "bench --resume": Case(
        lambda ws: ["bench", "tasks.jsonl", "--resume", b"b\xe9", "-w", str(ws)],
        "--resume: not UTF-8 text (byte 0xe9 at offset 1)",
    ),
    "judges calibrate LABELS.csv": Case(
        lambda ws: ["judges", "calibrate", b"labels\xe9.csv", "-w", str(ws)],
        "LABELS.csv: not UTF-8 text (byte 0xe9 at offset 6)",
    ),
    # a secret: its line does not say which of its bytes is bad, nor where
    "ui --token": Case(
        lambda ws: ["ui", "-w", str(ws), "--token", b"0123456789abcdef\xe9"], "--token: not UTF-8 text"
    ),
    "migrate SRC": Case(
        lambda ws: ["migrate", b"core\xe9", "-w", str(ws.parent / "new")],
        "SRC: not UTF-8 text (byte 0xe9 at offset 4)",
    ),
    "migrate --orchestrator": Case(
        lambda ws: ["migrate", str(ws), "--orchestrator", b"o\xe9.toml", "-w", str(ws.parent / "new")],
        "--orchestrator: not UTF-8 text (byte 0xe9 at offset 1)",
    ),
    "config validate --config": Case(
        lambda ws: ["config", "validate", "-w", str(ws), "--config", b"\xe9.toml"],
        "--config: not UTF-8 text (byte 0xe9 at offset 0)",
    ),
    "config init --output": Case(
        lambda ws: ["config", "init", "-w", str(ws), "--kind", "team", "--output", b"team\xe9.toml"],
        "--output: not UTF-8 text (byte 0xe9 at offset 4)",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_argument_that_is_not_utf8(workspace: Path, name: str) -> None:
    case = CASES[name]
    # relative file names resolve in the test's directory, never in the checkout
    assert (
        refused(mixseek(*case.args(workspace), cwd=os.fsencode(workspace.parent)))
        == f"error: {case.expected}"
    )


def _undecodable_directory(tmp_path: Path) -> bytes:
    """An existing directory whose name holds a byte that is not UTF-8 (legal on Linux)."""
    path = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(path)
    return path


@pytest.mark.parametrize(
    "command",
    [["config", "validate"], ["config", "show"], ["exec", "a task"], ["runs", "list"], ["doctor"], ["init"]],
    ids=" ".join,
)
def test_a_workspace_path_that_is_not_utf8_is_refused(tmp_path: Path, command: list[str]) -> None:
    ws = _undecodable_directory(tmp_path)
    offset = len(ws) - 1
    line = refused(mixseek(*command, "-w", ws))
    assert line == f"error: --workspace: not UTF-8 text (byte 0xe9 at offset {offset})"


def test_a_workspace_in_the_environment_that_is_not_utf8(tmp_path: Path) -> None:
    ws = _undecodable_directory(tmp_path)
    line = refused(mixseek("config", "validate", env={"MIXSEEK_WORKSPACE": ws}))
    assert line == (
        f"error: MIXSEEK_WORKSPACE: the workspace path {tmp_path}/caf\\xe9 is not UTF-8 text "
        f"(byte 0xe9 at offset {len(ws) - 1})"
    )


def test_a_workspace_relative_to_a_directory_that_is_not_utf8(tmp_path: Path) -> None:
    cwd = _undecodable_directory(tmp_path)
    os.mkdir(cwd + b"/ws")
    line = refused(mixseek("runs", "list", "-w", "ws", cwd=cwd))
    assert line == (
        f"error: --workspace: the workspace path {tmp_path}/caf\\xe9/ws is not UTF-8 text "
        f"(byte 0xe9 at offset {len(cwd) - 1})"
    )


def test_a_token_in_the_environment_that_is_not_utf8(workspace: Path) -> None:
    line = refused(mixseek("ui", "-w", str(workspace), env={"MIXSEEK_UI_TOKEN": b"0123456789abcdef\xe9"}))
    assert line == "error: MIXSEEK_UI_TOKEN: not UTF-8 text"
