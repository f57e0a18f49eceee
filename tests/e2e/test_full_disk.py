"""A disk that fills up while `mixseek exec` runs, whenever it does (a round's save, a checkpoint,
the final status): one line naming the database file with the command to resume, exit 2, no
summary, and a stored status that says the same — resumable, never `completed`.

Each run is a real `mixseek exec` process (scripted models) in a workspace on a real tmpfs: small
ones the run fills by itself, at a point that depends on the size; larger ones that the test fills
at the first leader call of round 2, or just before the final status is written, leaving room for
a log entry but not for the file's checkpoint.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .db import rows
from .mounts import tmpfs
from .scripted import World, write_workspace

HERE = Path(__file__).parent
EVENT_LINE = re.compile(r"^\d\d:\d\d:\d\d [a-z_]+")
BOARD = "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"


def _exec(runner: Path, ws: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(runner), "exec", "最良の回答を", "-w", str(ws), "-f", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def _stopped_resumable(run: subprocess.CompletedProcess[str], ws: Path, copy: Path) -> str:
    """Assert what a run stopped by the full disk must show; returns its execution id."""
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""  # no summary: the execution did not finish
    (problem,) = [line for line in run.stderr.splitlines() if not EVENT_LINE.match(line)]
    db = ws / "mixseek.db"
    assert problem.startswith(
        f"error: {db}: cannot write the database: no space left on device; resume with: "
    ), problem
    execution_id = problem.split("--resume ")[1].split()[0]
    assert problem.endswith(f"mixseek exec --resume {execution_id} -w {ws}")
    # what is stored, read from a copy on a disk with room (as DuckDB replays the log there)
    shutil.copytree(ws, copy)
    ((stored,),) = rows(
        copy / "mixseek.db", f"SELECT status FROM executions WHERE execution_id = '{execution_id}'"
    )
    assert stored in ("running", "interrupted"), stored
    shown = CliRunner().invoke(app, ["runs", "show", execution_id, "-w", str(copy), "-f", "json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["status"] == "interrupted"
    return execution_id


# (tmpfs size in MiB, max_rounds): where the run fills the disk by its own writes — the first
# round's save (2, 4); the final status, whose checkpoint grows a one-round run's file past 5 MiB
# (3, 1). The file's size varies between runs and machines (DuckDB reuses freed blocks as the
# timing allows: a four-round run has left 5 to 10 MiB), so these sizes stay well below the least
# seen; a fill at a chosen later moment is the next test's.
DISKS = [(2, 4), (3, 1)]


@pytest.mark.parametrize(("mib", "max_rounds"), DISKS, ids=[f"{m}MiB-{r}rounds" for m, r in DISKS])
def test_a_disk_that_fills_during_exec_stops_it_resumable(
    tmp_path: Path, mounts: list[Path], mib: int, max_rounds: int
) -> None:
    disk = tmp_path / "disk"
    tmpfs(disk, f"{mib}m", mounts)
    ws = write_workspace(disk / "ws", max_rounds=max_rounds)
    run = _exec(HERE / "run_scripted.py", ws)
    _stopped_resumable(run, ws, tmp_path / "copy")


def test_a_disk_that_fills_in_the_second_round_stops_it_resumable(tmp_path: Path, mounts: list[Path]) -> None:
    disk = tmp_path / "disk"
    tmpfs(disk, "48m", mounts)
    ws = write_workspace(disk / "ws", max_rounds=4)
    run = _exec(HERE / "run_guarded.py", ws, {"FILL_DISK": str(disk), "FILL_DISK_AT": "2"})
    assert (disk / "filler").exists(), "the disk was never filled"
    _stopped_resumable(run, ws, tmp_path / "copy")


def test_a_disk_that_fills_as_the_final_status_is_written(
    tmp_path: Path, runner: CliRunner, mounts: list[Path]
) -> None:
    reference = write_workspace(tmp_path / "reference")
    with override_models(World().models()):
        assert runner.invoke(app, ["exec", "最良の回答を", "-w", str(reference), "-f", "json"]).exit_code == 0
    disk = tmp_path / "disk"
    tmpfs(disk, "48m", mounts)
    ws = write_workspace(disk / "ws")
    # the store stays open all run, so the whole run is still to be checkpointed at the end: the
    # 128 KiB left take the final status into the write-ahead log, not into the file itself
    full = {"FILL_DISK": str(disk), "FILL_DISK_AT": "finish", "FILL_DISK_LEAVE": str(128 * 1024)}
    run = _exec(HERE / "run_guarded.py", ws, {**full, "KEEP_STORE_OPEN": "1"})
    assert (disk / "filler").exists(), "the disk was never filled"
    execution_id = _stopped_resumable(run, ws, tmp_path / "copy")

    (disk / "filler").unlink()
    with override_models(World().models()):
        resumed = runner.invoke(app, ["exec", "--resume", execution_id, "-w", str(ws), "-f", "json"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["status"] == "completed"
    assert rows(ws / "mixseek.db", BOARD) == rows(reference / "mixseek.db", BOARD)
    assert rows(ws / "mixseek.db", "SELECT status FROM executions") == [("completed",)]
