"""`mixseek exec` on a terminal, as a user sees it: the live table with its legend, and
`exec --resume`, which says how far the execution had got and shows its stored rounds in the
table from the start (no event brings them: they are not run again).

Each run is the real CLI with scripted models in a process of its own, on a pseudo-terminal of
80 columns; the screen is read after it exits (`terminal.Screen` replays the redraws)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from e2e.scripted import write_workspace
from terminal import Screen, run_on_terminal

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"
PROMPT = "最良の回答を"
LEGEND = "→ goes on to the next round  ■ stops after this round  … still running"


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_") and k != "COLUMNS"}
    return {**env, "TERM": "xterm"}


def on_terminal(*args: str) -> tuple[int, list[str]]:
    """`mixseek ARGS` with the scripted models on an 80-column terminal: exit code, screen lines."""
    run = run_on_terminal([sys.executable, str(RUN_SCRIPTED), *args], env=environment(), columns=80)
    return run.returncode, Screen(80).feed(run.output).text()


def table(lines: list[str]) -> list[list[str]]:
    """The live table's rows after its title, each a list of its cells, a cell's time as `Ns`
    (how long a round took depends on the machine)."""
    start = lines.index("mixseek exec")
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith(("│", "┃")):
            cells = [cell.strip() for cell in line.strip("│┃").split(line[0])]
            rows.append([re.sub(r"\b\d+s$", "Ns", cell) for cell in cells])
    return rows


def interrupted(ws: Path) -> str:
    """An execution of `ws` killed (SIGKILL) as its second round starts: round 1 is stored for
    every team, with its judgment. Its id."""
    killed = subprocess.run(
        [sys.executable, str(RUN_SCRIPTED), "exec", PROMPT, "-w", str(ws), "-f", "json"],
        env={**environment(), "SCRIPTED_KILL_AT": "*:2"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    (log,) = (ws / "logs").glob("*.jsonl")
    return str(json.loads(log.read_text(encoding="utf-8").splitlines()[0])["execution_id"])


def test_the_live_table_has_a_legend_of_its_marks(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    code, lines = on_terminal("exec", PROMPT, "-w", str(ws))
    assert code == 0, "\n".join(lines)
    assert lines.count("mixseek exec") == 1
    assert table(lines) == [
        ["team", "round 1", "round 2"],
        ["alpha", "60.0 →", "75.0 ■"],
        ["", "439 tok Ns", "439 tok Ns"],
        ["beta", "70.0 →", "72.0 ■"],
        ["", "294 tok Ns", "294 tok Ns"],
        ["gamma", "50.0 →", "75.0 ■"],
        ["", "439 tok Ns", "439 tok Ns"],
    ]
    bottom = next(i for i, line in enumerate(lines) if line.startswith("└"))
    assert lines[bottom + 1] == LEGEND


def test_a_resume_says_how_far_it_had_got_and_shows_the_stored_rounds(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    execution_id = interrupted(ws)
    code, lines = on_terminal("exec", "--resume", execution_id, "-w", str(ws))
    assert code == 0, "\n".join(lines)
    assert lines[0] == f"resuming {execution_id}: 3 of up to 6 team rounds already stored"
    assert lines[1] == "mixseek exec"
    assert lines.count("mixseek exec") == 1
    # round 1 comes from the store (the resume does not run it again), round 2 from this run
    assert table(lines) == [
        ["team", "round 1", "round 2"],
        ["alpha", "60.0 →", "75.0 ■"],
        ["", "439 tok Ns", "439 tok Ns"],
        ["beta", "70.0 →", "72.0 ■"],
        ["", "294 tok Ns", "294 tok Ns"],
        ["gamma", "50.0 →", "75.0 ■"],
        ["", "439 tok Ns", "439 tok Ns"],
    ]


def test_a_resume_off_a_terminal_says_how_far_it_had_got_on_stderr(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    execution_id = interrupted(ws)
    resumed = subprocess.run(
        [sys.executable, str(RUN_SCRIPTED), "exec", "--resume", execution_id, "-w", str(ws), "-f", "json"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stderr.splitlines()
    assert lines[0].split(" ", 1)[1] == "execution_resumed"  # the event's line, after its time
    assert lines[1] == f"resuming {execution_id}: 3 of up to 6 team rounds already stored"
    assert json.loads(resumed.stdout)["rounds_run"] == 2
