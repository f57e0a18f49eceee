"""An execution interrupted by a real Ctrl-C (SIGINT) and resumed, as every surface reads it.

Real processes: `mixseek exec` with scripted models (run_scripted.py) holds its leaders of round 2
at a gate file, so the test knows where the run is when it sends SIGINT, and for how long each
process was busy. Times are bounded only by what the test itself waited, never by how fast the
machine is.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.cli.summary_view import print_summary
from mixseek.orchestrator.models import ExecutionSummary

from .db import rows
from .scripted import write_workspace
from .test_faults import scripted_cli

PROMPT = "最良の回答を"
BOUND = 120.0  # seconds: only a bound for a broken run, never a pace the test relies on
HELD_FIRST = 4.0  # how long the first process is kept busy before its Ctrl-C
IDLE = 3.0  # between the interrupted process's end and the resume
HELD_SECOND = 1.0  # how long the resuming process is kept busy in its round
TEAMS = [("Beta", "beta", "70.00"), ("Alpha", "alpha", "60.00"), ("Gamma", "gamma", "50.00")]


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + BOUND
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"the process ended before reaching {path.name}: {proc.communicate()}")
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def gated(gate: Path, *args: str) -> subprocess.Popen[str]:
    """`mixseek *args` whose leaders of round 2 wait for `gate` (the first creates `gate.waiting`)."""
    return scripted_cli(*args, env={"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "2"})


def interrupt(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C, and the process's end: exit 130 and the line that says how to resume."""
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 130, err
    assert out == ""
    assert "interrupted: resume with: mixseek exec --resume " in err


def cli(runner: CliRunner, *args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def shown(runner: CliRunner, ws: Path, execution_id: str) -> dict[str, object]:
    """`runs show -f json`."""
    document = json.loads(cli(runner, "runs", "show", execution_id, "-w", str(ws), "-f", "json"))
    assert isinstance(document, dict)
    return document


def duration(runner: CliRunner, ws: Path, execution_id: str) -> float:
    """The duration `runs show` gives, checked against `runs list`'s and the JSON export's."""
    (listed,) = json.loads(cli(runner, "runs", "list", "-w", str(ws), "-f", "json"))
    exported = json.loads(cli(runner, "runs", "export", execution_id, "--format", "json", "-w", str(ws)))
    seconds = shown(runner, ws, execution_id)["duration_seconds"]
    assert isinstance(seconds, float)
    if exported["status"] != "running":  # (a running one's grows between the reads)
        assert listed["duration_seconds"] == exported["duration_seconds"] == seconds
    return seconds


def test_a_resumed_execution_lasts_the_active_time_of_both_its_processes(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    spawned = time.monotonic()
    first = gated(tmp_path / "first", "exec", PROMPT, "-w", str(ws), "-f", "json")
    wait_for(tmp_path / "first.waiting", first)  # round 1 is stored, round 2 is held
    held_from = time.monotonic()
    time.sleep(HELD_FIRST)
    held_first = time.monotonic() - held_from
    interrupt(first)
    first_ended = time.monotonic()
    ((execution_id,),) = rows(ws / "mixseek.db", "SELECT execution_id FROM executions")
    assert isinstance(execution_id, str)
    before_resume = duration(runner, ws, execution_id)
    assert held_first <= before_resume <= first_ended - spawned

    time.sleep(IDLE)  # no process runs the execution meanwhile: this time never counts
    resumed = time.monotonic()
    second = gated(tmp_path / "second", "exec", "--resume", execution_id, "-w", str(ws), "-f", "json")
    try:
        wait_for(tmp_path / "second.waiting", second)  # round 2 again, held in this process
        held_from = time.monotonic()
        time.sleep(HELD_SECOND)
        asked = time.monotonic()
        live = duration(runner, ws, execution_id)  # while it runs: the active time so far
        read = time.monotonic()
        assert before_resume + (asked - held_from) <= live <= before_resume + (read - resumed)
        time.sleep(0.2)
        assert duration(runner, ws, execution_id) > live  # and it goes on
    finally:
        (tmp_path / "second").touch()
    held_second = time.monotonic() - held_from
    out, err = second.communicate(timeout=BOUND)
    ended = time.monotonic()
    assert second.returncode == 0, err
    summary = json.loads(out)
    assert summary["status"] == "completed"

    total = duration(runner, ws, execution_id)
    assert summary["duration_seconds"] == total  # what exec printed is what the store keeps
    idle = resumed - first_ended
    assert idle >= IDLE
    assert before_resume + held_second <= total  # both processes' time, each held at least so long
    assert held_first + held_second <= total <= (ended - spawned) - idle  # none of the idle time
    (line,) = [
        line for line in cli(runner, "runs", "list", "-w", str(ws)).splitlines() if execution_id in line
    ]
    assert f" {total:.1f} s " in line
    show_line = cli(runner, "runs", "show", execution_id, "-w", str(ws)).splitlines()[2]
    assert re.fullmatch(rf"started .* UTC, duration {total:.1f} s, 2 round\(s\)", show_line)


def test_an_interrupted_execution_reads_plainly_everywhere(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    proc = gated(tmp_path / "gate", "exec", PROMPT, "-w", str(ws), "-f", "json")
    wait_for(tmp_path / "gate.waiting", proc)  # round 1 scored, every team in round 2
    interrupt(proc)
    ((execution_id, stored_summary),) = rows(
        ws / "mixseek.db", "SELECT execution_id, summary FROM executions"
    )
    assert isinstance(execution_id, str) and isinstance(stored_summary, str)
    resume = f"mixseek exec --resume {execution_id} -w {ws}"

    # runs list: interrupted, one round (the one that was scored)
    header, entry, *hint = cli(runner, "runs", "list", "-w", str(ws)).splitlines()
    assert header.split()[-2:] == ["rounds", "tokens"]
    assert entry.split()[:2] == [execution_id, "interrupted"]
    assert entry.split()[6:9] == ["beta", "70.00", "1"]
    assert hint == ["", "interrupted, resume with:", f"  {resume}"]
    (listed,) = json.loads(cli(runner, "runs", "list", "-w", str(ws), "-f", "json"))
    assert (listed["status"], listed["rounds_run"]) == ("interrupted", 1)

    # runs show: said once, each team cut off after round 1, no round final
    text = cli(runner, "runs", "show", execution_id, "-w", str(ws))
    lines = text.splitlines()
    assert lines[:2] == [f"execution {execution_id}: interrupted after round 1", f"resume with: {resume}"]
    assert lines[3].endswith(", 1 round(s)")
    for name, team_id, score in TEAMS:
        heading = (
            f"team {name} ({team_id}): interrupted after round 1, 1 round(s) scored, best round 1 ({score})"
        )
        at = lines.index(heading)
        assert lines[at + 1] == f"  round 1: {score}/100"
        assert "  round 2: -/100 [interrupted]" in lines[at + 2 :]
    assert "(final)" not in text and "stopped because" not in text and "completed" not in text

    document = shown(runner, ws, execution_id)
    assert {key: document[key] for key in ("status", "stop_reason", "stop_detail", "rounds_run")} == {
        "status": "interrupted",
        "stop_reason": "interrupted",
        "stop_detail": "after round 1",
        "rounds_run": 1,
    }
    teams = document["teams"]
    assert isinstance(teams, list)
    assert [
        (
            t["team_id"],
            t["status"],
            t["rounds_completed"],
            t["exit_reason"],
            [(r["round_number"], r["status"], r["is_final"]) for r in t["rounds"]],
        )
        for t in teams
    ] == [
        (team_id, "interrupted", 1, None, [(1, "completed", False), (2, "interrupted", False)])
        for _, team_id, _ in TEAMS
    ]

    # the exports: Markdown and the HTML page say the same
    markdown = cli(runner, "runs", "export", execution_id, "--format", "markdown", "-w", str(ws))
    assert "- status: interrupted after round 1\n" in markdown
    assert "- rounds: 1\n" in markdown
    assert markdown.count("- status: interrupted after round 1\n") == 1 + len(TEAMS)
    assert "(final)" not in markdown and "stopped because" not in markdown
    html = cli(runner, "runs", "export", execution_id, "--format", "html", "-w", str(ws))
    assert '<dd id="stop-reason">after round 1</dd>' in html
    assert '<span class="muted small">final</span>' not in html

    # the dashboard's header
    from mixseek.storage.quick_read import read_once
    from mixseek.storage.read_model import read_execution
    from mixseek.ui.pages_execution import render_header

    view = read_once(ws / "mixseek.db", lambda conn: read_execution(conn, execution_id))
    assert view is not None
    header_html = render_header(view, "token")
    assert '<dd id="execution-stop">after round 1</dd>' in header_html
    assert ">interrupted</span>" in header_html

    # exec's summary, as it printed the one it stored
    console = Console(width=200, record=True)
    print_summary(console, ExecutionSummary.model_validate_json(stored_summary))
    printed = console.export_text()
    (last,) = [line for line in printed.splitlines() if line.startswith(f"execution {execution_id}:")]
    assert last.startswith(f"execution {execution_id}: interrupted after round 1 — 1 round(s), ")
    assert "completed" not in printed
