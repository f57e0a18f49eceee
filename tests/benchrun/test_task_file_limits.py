"""TASKS.jsonl that would exhaust a parser, or hold what cannot be stored: one line on stderr naming
the file and the line, exit 2, nothing started. And lines end at `\\n` alone, so valid JSON Lines
holding a raw U+2028 or U+0085 in a string is read as written. The CLI runs in a process of its
own with the scripted models of `world.py` (`run_bench.py`), so a task that got past the checks
would run and be stored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchrun.world import write_bench_workspace
from e2e.db import rows

RUN_BENCH = Path(__file__).with_name("run_bench.py")
DIGITS = "7" * 5000


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    return subprocess.run(
        [sys.executable, str(RUN_BENCH), "bench", *args],
        env=env,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=300,
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return write_bench_workspace(tmp_path / "ws")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            b'{"prompt": "TASK t1: a"}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n",
            "line 2: JSON nested too deeply",
        ),
        (
            b'{"prompt": "TASK t1: \\ud800 a"}\n',
            "line 1: 'prompt' is not valid Unicode (lone surrogate \\ud800 at character 10)",
        ),
        (
            b'{"prompt": "TASK t1: a"}\n{"id": "t\\udfff", "prompt": "TASK t2: b"}\n',
            "line 2: 'id' is not valid Unicode (lone surrogate \\udfff at character 2)",
        ),
        (
            b'{"prompt": "a", "tags": ["ok", "\\udc80"]}\n',
            "line 1: 'tags' is not valid Unicode (lone surrogate \\udc80 at character 1)",
        ),
        (
            b'{"id": ' + DIGITS.encode() + b', "prompt": "TASK t1: a"}\n',
            "line 1: a number of 5000 digits (at most 100; give a long 'id' as a string)",
        ),
        (
            b'{"prompt": "TASK t1: a"}\n{"prompt": "caf\xe9"}\n',
            "line 2: not UTF-8 text (byte 0xe9 at byte 16 of the line)",
        ),
    ],
    ids=["deep", "surrogate-prompt", "surrogate-id", "surrogate-tag", "long-number", "latin-1"],
)
def test_a_hostile_line_is_one_error_naming_file_and_line(
    ws: Path, tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(content)
    proc = bench(str(path), "-w", str(ws))
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, f"error: {path}: {reason}\n", "")
    assert not (ws / "mixseek.db").exists()


def test_an_endless_line_is_refused_after_16_mib(ws: Path) -> None:
    proc = bench("/dev/zero", "-w", str(ws))
    expected = "error: /dev/zero: line 1: longer than 16 MiB\n"
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, expected, "")
    assert not (ws / "mixseek.db").exists()


def test_line_separators_inside_strings_are_text(ws: Path, tmp_path: Path) -> None:
    prompts = ["TASK t1: name\u2028a colour", "TASK t2: add\u0085 2 and 3"]
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        f'{{"id": "t1", "prompt": "{prompts[0]}", "tags": ["a\u2028b"]}}\n'
        f'{{"id": "t2", "prompt": "{prompts[1]}"}}\r\n',  # a CRLF line end too
        encoding="utf-8",
    )
    proc = bench(str(path), "-w", str(ws), "-f", "json")
    assert proc.returncode == 0, proc.stderr
    stored = rows(
        ws / "mixseek.db",
        "SELECT r.task_id, e.user_prompt FROM bench_runs r JOIN executions e USING (execution_id) ORDER BY 1",
    )
    assert stored == [("t1", prompts[0]), ("t2", prompts[1])]
