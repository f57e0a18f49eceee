"""A damaged or unwritable store: every command that touches it says so in one line, exit 2,
before any model is called; a store that fails mid-run leaves the execution resumable."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models
from store_damage import DAMAGES, fill_disk

from .db import rows
from .mounts import read_only, tmpfs
from .scripted import World, write_workspace

RUNNER = Path(__file__).parent / "run_guarded.py"
EVENT_LINE = re.compile(r"^\d\d:\d\d:\d\d [a-z_]+")
BOARD = "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"

COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "exec": lambda execution_id: ["exec", "another task"],
    "exec --resume": lambda execution_id: ["exec", "--resume", execution_id],
    "exec --dry-run": lambda execution_id: ["exec", "--dry-run", "another task"],
    "runs list": lambda execution_id: ["runs", "list"],
    "runs show": lambda execution_id: ["runs", "show", execution_id],
    "runs export": lambda execution_id: ["runs", "export", execution_id, "--format", "json"],
}
WRITERS = ("exec", "exec --resume", "exec --dry-run")


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A workspace holding one finished execution (copied by each test)."""
    root = write_workspace(tmp_path_factory.mktemp("template") / "ws", max_rounds=1)
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(root), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert not (root / "mixseek.db.wal").exists()
    return root, json.loads(result.stdout)["execution_id"]


def _full_disk(tmp_path: Path, template: Path, mounts: list[Path]) -> Path:
    disk = tmp_path / "disk"
    tmpfs(disk, "32m", mounts)
    ws = disk / "ws"
    shutil.copytree(template, ws)
    fill_disk(disk)
    return ws


def _problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("damage", [*sorted(DAMAGES), "read-only-workspace", "full-disk"])
def test_a_bad_store_is_one_line_exit_2_and_no_model_is_called(
    tmp_path: Path,
    runner: CliRunner,
    finished: tuple[Path, str],
    mounts: list[Path],
    damage: str,
    command: str,
) -> None:
    template, execution_id = finished
    if damage == "full-disk":
        ws = _full_disk(tmp_path, template, mounts)
    else:
        ws = tmp_path / "ws"
        shutil.copytree(template, ws)
        if damage == "read-only-workspace":
            read_only(ws, mounts)
        else:
            DAMAGES[damage](ws / "mixseek.db")
    world = World()
    with override_models(world.models()):
        result = runner.invoke(app, [*COMMANDS[command](execution_id), "-w", str(ws)])
    assert "Traceback" not in result.output
    assert world.calls == 0, "a model was called before the store was known to work"
    if damage in ("read-only-workspace", "full-disk") and command not in WRITERS:
        # reading needs no writable disk: the results stay readable
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2, result.output
    (line,) = _problem_lines(result.stderr)
    named = ws / ("mixseek.db.wal" if damage == "corrupt-wal" else "mixseek.db")
    if damage == "read-only-workspace" and command == "exec --dry-run":
        named = ws  # the dry run finds the workspace itself unwritable first
    assert line.startswith(f"error: {named}: "), line
    expected = {
        "truncated": "the database file is damaged",
        "garbage-header": "not a DuckDB database file",
        "flipped-bytes": "the database file is damaged",
        "corrupt-wal": "the database's write-ahead log is damaged",
        "sqlite-file": "a SQLite database, not a DuckDB database file",
        "directory": "is a directory, not a database file",
        "read-only-workspace": "Read-only file system",
        "full-disk": "no space left on device",
    }[damage]
    assert expected in line


def test_a_full_disk_mid_run_stops_the_execution_resumable(
    tmp_path: Path, runner: CliRunner, mounts: list[Path]
) -> None:
    reference = write_workspace(tmp_path / "reference", max_rounds=3)
    with override_models(World().models()):
        assert runner.invoke(app, ["exec", "最良の回答を", "-w", str(reference), "-f", "json"]).exit_code == 0
    disk = tmp_path / "disk"
    tmpfs(disk, "48m", mounts)
    ws = write_workspace(disk / "ws", max_rounds=3)
    full = subprocess.run(
        [sys.executable, str(RUNNER), "exec", "最良の回答を", "-w", str(ws), "-f", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "FILL_DISK": str(disk), "FILL_DISK_AT": "2"},
        timeout=300,
    )
    assert (disk / "filler").exists(), "the disk was never filled"
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    (problem,) = [line for line in full.stderr.splitlines() if not EVENT_LINE.match(line)]
    db = ws / "mixseek.db"
    assert problem.startswith(
        f"error: {db}: cannot write the database: no space left on device; resume with: "
    )
    execution_id = problem.split("--resume ")[1].split()[0]
    assert problem.endswith(f"mixseek exec --resume {execution_id} -w {ws}")
    # marked interrupted if the full disk still took that; else its owner is gone: resumable all the same
    assert rows(db, "SELECT status FROM executions") in ([("interrupted",)], [("running",)])
    (disk / "filler").unlink()
    shown = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["status"] == "interrupted"

    with override_models(World().models()):
        resumed = runner.invoke(app, ["exec", "--resume", execution_id, "-w", str(ws), "-f", "json"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["status"] == "completed"
    assert rows(db, BOARD) == rows(reference / "mixseek.db", BOARD)


def test_init_on_a_read_only_disk_is_one_line(tmp_path: Path, runner: CliRunner, mounts: list[Path]) -> None:
    parent = tmp_path / "read-only"
    parent.mkdir()
    read_only(parent, mounts)
    result = runner.invoke(app, ["init", "-w", str(parent / "ws")])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {parent / 'ws'}: Read-only file system\n"
