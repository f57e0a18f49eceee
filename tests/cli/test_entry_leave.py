"""How the `mixseek` program ends: a process that started the Temporal SDK's runtime exits
without the interpreter's finalization (the runtime's threads can abort it there, after the work
was done), its output flushed and its exit code kept; any other process ends normally, less the
interpreter's last collections over the objects alive at its end."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("finalized"))
if sys.argv[1] == "temporal":
    from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime
    sdk_runtime()
from mixseek.cli.entry import leave
sys.stdout.write("output kept")  # no newline: only a flush gets it out
leave(int(sys.argv[2]) if sys.argv[2].isdigit() else sys.argv[2])
"""


def _run(kind: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, kind, code], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("code", ["0", "3"])
def test_a_process_that_started_the_temporal_runtime_skips_finalization(code: str) -> None:
    done = _run("temporal", code)
    assert done.returncode == int(code)
    assert done.stdout == "output kept"
    assert "finalized" not in done.stderr


def test_a_message_as_exit_code_is_printed_and_exits_1() -> None:
    done = _run("temporal", "error: something")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "error: something"
    assert "finalized" not in done.stderr


def test_any_other_process_ends_normally() -> None:
    done = _run("local", "3")
    assert done.returncode == 3
    assert done.stdout == "output kept"
    assert done.stderr == "finalized"


def test_the_objects_alive_at_the_end_are_left_out_of_the_last_collections() -> None:
    """The interpreter's last cyclic collections would walk every object the imports made (longer
    than a quick command's own work): `mixseek` freezes them first, after its exit handlers are set."""
    script = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: sys.stderr.write(f'frozen {gc.get_freeze_count()}'))\n"
        "sys.argv[0] = 'mixseek'\n"
        "from mixseek.cli.entry import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mixseek ")
    frozen = int(done.stderr.removeprefix("frozen "))
    assert frozen > 1000  # typer's objects at least
