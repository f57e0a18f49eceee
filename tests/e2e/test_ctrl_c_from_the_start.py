"""Ctrl-C from the first milliseconds of `mixseek exec` on: one documented line and exit 130.

Real `python -m mixseek.cli exec` processes (no test code in them: a workspace of pydantic-ai's
`test` model, as `mixseek init --model test` writes it) receive SIGINT at a spread of delays after
they start, each sent as soon as its delay has passed. Where the signal lands depends on the
machine; whatever the moment, the process ends with exit code 130 and one of the lines README
"Exit codes" documents, consistent with what the store holds, and a resumable execution resumes.

The one exception is a signal that lands before mixseek's guard exists: while the interpreter
starts (before any of mixseek runs), or in the few statements of mixseek that run before the guard
(`mixseek/__init__` and the guard's own import; bench/interrupt_window.py measures that window).
Such a process is told apart by where its traceback points, and must have left nothing behind.
A second test pins that window down without timing: before the guard, nothing loads but the
interpreter's start-up and those few small modules.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mixseek

from .db import rows

PROMPT = "最良の回答を"
DELAYS_MS = (0, 5, 10, 20, 40, 80, 160, 320, 640, 1280)
EVENT_LINE = re.compile(r"^\d\d:\d\d:\d\d [a-z_]+")
NOTHING_STARTED = "interrupted: no execution was started"
DOCUMENTED = ("interrupted: resume with: mixseek exec --resume ", "interrupted: execution ")
SRC = Path(mixseek.__file__).resolve().parents[1]
ENTRY = SRC / "mixseek" / "cli" / "entry.py"
BEFORE_THE_GUARD = {
    "mixseek/__init__.py",
    "mixseek/lazy_exports.py",
    "mixseek/version.py",
    "mixseek/cli/__init__.py",
    "mixseek/cli/__main__.py",
    "mixseek/cli/loading_guard.py",
}
"""mixseek's files that run before the guard is installed (cli/entry.py runs until `install()`)."""


def _install_line() -> int:
    """The line of `cli/entry.py` that installs the guard (0 if there is none)."""
    lines = ENTRY.read_text(encoding="utf-8").splitlines()
    return next((n for n, line in enumerate(lines, start=1) if line.strip() == "install()"), 0)


def _landed_before_the_guard(returncode: int, stderr: str) -> bool:
    """Whether the interpreter, not mixseek, took the signal: before Python had a handler (the
    process dies of it, silently), while Python imported its own start-up modules (`site`,
    `runpy`: it says so), or in the few statements of mixseek before the guard (a
    KeyboardInterrupt traceback pointing only there, and at the standard library)."""
    if returncode == -signal.SIGINT and stderr == "":
        return True
    if not stderr.rstrip().endswith("KeyboardInterrupt"):
        return False
    if stderr.startswith(("Fatal Python error: init_import_site:", "Could not import runpy module")):
        return True
    install = _install_line()
    for file, line in re.findall(r'File "([^"]+)", line (\d+)', stderr):
        path = Path(file).resolve()
        if file.startswith("<"):  # <frozen runpy>, <string>
            continue
        if SRC not in path.parents:
            if "site-packages" in path.parts:  # a library: loaded inside the guard
                return False
            continue  # the standard library
        relative = path.relative_to(SRC).as_posix()
        if relative == "mixseek/cli/entry.py" and int(line) <= install:
            continue
        if relative not in BEFORE_THE_GUARD:
            return False
    return True


def _mixseek(*args: str) -> list[str]:
    return [sys.executable, "-m", "mixseek.cli", *args]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`mixseek init`'s workspace on pydantic-ai's `test` model (no key, no network)."""
    ws = tmp_path_factory.mktemp("sample") / "ws"
    done = subprocess.run(
        _mixseek("init", "-w", str(ws), "--model", "test"), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return ws


def _executions(ws: Path) -> list[tuple[object, ...]]:
    db = ws / "mixseek.db"
    return rows(db, "SELECT execution_id, status FROM executions") if db.exists() else []


@pytest.mark.parametrize("delay_ms", DELAYS_MS)
def test_ctrl_c_at_any_moment_after_start_is_one_documented_line(
    tmp_path: Path, sample: Path, delay_ms: int
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(sample, ws)
    proc = subprocess.Popen(
        _mixseek("exec", PROMPT, "-w", str(ws), "-f", "json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if delay_ms:
        time.sleep(delay_ms / 1000)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)

    if _landed_before_the_guard(proc.returncode, stderr):
        assert (stdout, _executions(ws)) == ("", [])
        return
    if proc.returncode == 0:  # it finished before the signal landed
        assert [status for _, status in _executions(ws)] == ["completed"]
        return
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    (line,) = [line for line in stderr.splitlines() if line.strip() and not EVENT_LINE.match(line)]
    assert line == NOTHING_STARTED or line.startswith(DOCUMENTED), line
    stored = _executions(ws)
    if line == NOTHING_STARTED:
        assert stored == []
        return
    ((execution_id, status),) = stored
    if line.startswith("interrupted: resume with: "):
        assert line == f"interrupted: resume with: mixseek exec --resume {execution_id} -w {ws}"
        assert status == "interrupted"
        resumed = subprocess.run(
            _mixseek("exec", "--resume", str(execution_id), "-w", str(ws), "-f", "json"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["status"] == "completed"
        return
    assert line == (
        f"interrupted: execution {execution_id} had already ended (completed); "
        f"see: mixseek runs show {execution_id} -w {ws}"
    )
    assert status == "completed"


def _imported(code: str) -> list[str]:
    """The modules `python -X importtime -c CODE` imports, in the order their imports end."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return [
        line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
    ]


def test_before_the_guard_only_mixseeks_own_few_small_modules_load() -> None:
    """What the installed `mixseek` script runs (`from mixseek.cli.entry import main`): past the
    interpreter's start-up, the guard is the first thing mixseek does once its packages'
    `__init__` have run, and these import nothing (not `typing`: ~10 ms)."""
    start_up = set(_imported("pass"))
    imported = _imported("from mixseek.cli.entry import main")
    assert "mixseek.cli.loading_guard" in imported
    before = imported[: imported.index("mixseek.cli.loading_guard")]
    assert [m for m in before if m not in start_up] == [
        "mixseek.lazy_exports",
        "mixseek.version",
        "mixseek",
        "mixseek.cli",
    ]
