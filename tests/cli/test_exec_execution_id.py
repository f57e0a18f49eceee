"""`mixseek exec --execution-id ID`: a new execution under an id chosen up front (the dashboard
chooses one so that it can show the execution's page before the process has written anything)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.orchestrator.execution_ids import is_valid_execution_id
from mixseek.orchestrator.orchestrator import new_execution_id

PROMPT = "最良の回答を"
RULE = "use lower-case letters, digits and '-' (at most 64, starting and ending with a letter or digit)"


def run_exec(ws: Path, *args: str) -> Result:
    with override_models(World().models()):
        return CliRunner().invoke(app, ["exec", PROMPT, "-w", str(ws), "-f", "json", *args])


def executions(ws: Path) -> list[tuple[object, ...]]:
    db = ws / "mixseek.db"
    return rows(db, "SELECT execution_id, status FROM executions ORDER BY 1") if db.exists() else []


def test_execution_id_names_the_new_execution(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    result = run_exec(ws, "--execution-id", "nightly-2025-01")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["execution_id"] == "nightly-2025-01"
    assert executions(ws) == [("nightly-2025-01", "completed")]
    assert (ws / "logs" / "nightly-2025-01.jsonl").is_file()


@pytest.mark.parametrize(
    "bad", ["Nightly", "../etc", "a b", "run_1", "-x", "x-", "", "a" * 65, "ünïcode", "x;rm"]
)
def test_execution_id_invalid_is_one_line_and_exit_2(tmp_path: Path, bad: str) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    result = run_exec(ws, "--execution-id", bad)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"error: --execution-id: {bad!r}: {RULE}"]
    assert executions(ws) == []


def test_execution_id_that_exists_is_refused_and_the_execution_kept(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    assert run_exec(ws, "--execution-id", "run-1").exit_code == 0
    board = rows(ws / "mixseek.db", "SELECT team_id, round_number, evaluation_score FROM leader_board")
    log = (ws / "logs" / "run-1.jsonl").read_text(encoding="utf-8")

    result = run_exec(ws, "--execution-id", "run-1")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"error: execution_id: 'run-1' exists already in {ws / 'mixseek.db'}"
    ]
    assert executions(ws) == [("run-1", "completed")]
    assert (
        rows(ws / "mixseek.db", "SELECT team_id, round_number, evaluation_score FROM leader_board") == board
    )
    assert (ws / "logs" / "run-1.jsonl").read_text(encoding="utf-8") == log


def test_execution_id_with_resume_is_refused(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", "--resume", "x-1", "--execution-id", "x-2", "-w", str(ws)])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "error: --execution-id: not allowed with --resume (the execution keeps its id)"
    ]


def test_generated_execution_ids_keep_to_the_rule() -> None:
    assert all(is_valid_execution_id(new_execution_id()) for _ in range(50))
