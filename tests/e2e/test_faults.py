"""Faults: flaky providers, SIGKILL mid-round then --resume, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .db import rows
from .scripted import World, write_workspace

RUNNER = Path(__file__).parent / "run_scripted.py"
BOARD = "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"
STATUS = "SELECT team_id, round_number, status, should_continue, exit_reason FROM round_status ORDER BY 1, 2"


def uninterrupted(
    tmp_path: Path, runner: CliRunner
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    ws = write_workspace(tmp_path / "reference")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return rows(ws / "mixseek.db", BOARD), rows(ws / "mixseek.db", STATUS)


def scripted_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(RUNNER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_flaky_provider_still_completes_with_each_round_stored_once(
    tmp_path: Path, runner: CliRunner
) -> None:
    expected_board, expected_status = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws", max_retries=12)
    world = World(flaky_rate=0.3)
    with override_models(world.models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert world.failures_injected >= 0.2 * world.calls  # the faults really happened
    db = ws / "mixseek.db"
    assert rows(db, BOARD) == expected_board
    assert rows(db, STATUS) == expected_status
    assert rows(db, "SELECT count(*), count(DISTINCT (team_id, round_number)) FROM leader_board") == [
        (len(expected_board), len(expected_board))
    ]
    assert rows(db, "SELECT count(*) FROM round_history") == [(len(expected_board),)]
    assert "transient error" in (ws / "logs" / "mixseek.log").read_text(encoding="utf-8")


def test_sigkill_mid_round_then_resume_gives_the_same_board(tmp_path: Path, runner: CliRunner) -> None:
    expected_board, expected_status = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws")
    killed = scripted_cli(
        "exec", "最良の回答を", "-w", str(ws), "-f", "json", env={"SCRIPTED_KILL_AT": "gamma:3"}
    )
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    db = ws / "mixseek.db"
    ((execution_id, status),) = rows(db, "SELECT execution_id, status FROM executions")
    assert status == "running"
    saved_before = rows(db, BOARD)
    assert ("gamma", 3, 78.0, False) not in saved_before  # the kill came before gamma's round 3 was saved
    assert len(saved_before) < len(expected_board)

    resumed = scripted_cli("exec", "--resume", str(execution_id), "-w", str(ws), "-f", "json")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    summary = json.loads(out)
    assert summary["execution_id"] == execution_id
    assert summary["status"] == "completed"
    assert rows(db, BOARD) == expected_board
    assert rows(db, STATUS) == expected_status
    assert rows(db, "SELECT count(*) FROM round_history") == [(len(expected_board),)]
    assert rows(db, "SELECT status FROM executions") == [("completed",)]


def test_ctrl_c_stops_cleanly_and_prints_the_resume_command(tmp_path: Path, runner: CliRunner) -> None:
    expected_board, _ = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws")
    proc = scripted_cli("exec", "最良の回答を", "-w", str(ws), env={"SCRIPTED_LEADER_DELAY": "0.5"})
    log = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        logs = list((ws / "logs").glob("*.jsonl")) if (ws / "logs").exists() else []
        if logs and "team_round_finished" in logs[0].read_text(encoding="utf-8"):
            log = logs[0]
            break
        time.sleep(0.05)
    assert log is not None, "the execution never finished a team round"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    execution_id = log.stem
    assert f"interrupted: resume with: mixseek exec --resume {execution_id} -w {ws}" in err
    assert "Traceback" not in err
    db = ws / "mixseek.db"
    assert rows(db, "SELECT status FROM executions") == [("interrupted",)]

    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "--resume", execution_id, "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert rows(db, BOARD) == expected_board


def test_completed_execution_cannot_be_resumed(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    with override_models(World().models()):
        first = runner.invoke(app, ["exec", "p", "-w", str(ws), "-f", "json"])
        execution_id = json.loads(first.stdout)["execution_id"]
        again = runner.invoke(app, ["exec", "--resume", execution_id, "-w", str(ws)])
    assert again.exit_code == 2
    assert again.stderr.strip() == (
        f"error: --resume: execution '{execution_id}' is completed; only running or interrupted executions "
        "can be resumed"
    )
