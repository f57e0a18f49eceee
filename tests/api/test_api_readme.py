"""The README's "Python API" section: its first Python block runs as it is, with no key and no network."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def _python_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Python API\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M)


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter: no mixseek or provider variables, no user site-packages, an
    empty home, and any connection attempt sent to a closed port (so a request would fail)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MIXSEEK_", "PYTEST_", "PYTHON")) and not k.endswith(("_API_KEY", "_TOKEN"))
    }
    dead = "http://127.0.0.1:9"
    (tmp_path / "tmp").mkdir()
    env.update(HOME=str(tmp_path), TMPDIR=str(tmp_path / "tmp"))
    env.update(HTTP_PROXY=dead, HTTPS_PROXY=dead, ALL_PROXY=dead, NO_PROXY="")
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-I", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_first_python_block_runs_two_teams_for_two_rounds(tmp_path: Path) -> None:
    first = _python_blocks()[0]
    assert "ALLOW_MODEL_REQUESTS" not in first
    proc = _run(first, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "winner: Duo (round 2, 0.0/100)",
        "1. Duo: best 0.0 in 2 rounds",
        "2. Solo: best 0.0 in 2 rounds",
    ]
    assert not list((tmp_path / "tmp").iterdir())  # no workspace: its temporary store is gone


def test_the_events_example_streams_each_round(tmp_path: Path) -> None:
    first, events = _python_blocks()[:2]
    proc = _run(first + "\n" + events, tmp_path)
    assert proc.returncode == 0, proc.stderr
    streamed = proc.stdout.splitlines()[3:]
    assert streamed[-1] == "winner: duo"
    assert sorted(streamed[:4]) == [
        "round 1: duo goes on (min_rounds)",
        "round 1: duo scored 0.0",
        "round 1: solo goes on (min_rounds)",
        "round 1: solo scored 0.0",
    ]
    assert streamed[4].startswith("so far: ") and streamed[9].startswith("so far: ")
    assert "round 2: duo stops (max_rounds)" in streamed[5:9]
