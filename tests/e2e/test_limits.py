"""Budgets and timeouts through `mixseek exec`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .db import rows
from .scripted import World, write_workspace


def run(runner: CliRunner, ws: Path, world: World) -> tuple[int, dict[str, object]]:
    with override_models(world.models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


def test_request_budget_reached_between_rounds_starts_no_new_round(tmp_path: Path, runner: CliRunner) -> None:
    # round 1 takes 16 requests (alpha 2+1+3, beta 1+3, gamma 2+1+3) and its judgments 3 more
    ws = write_workspace(tmp_path / "ws", extra="max_requests = 19")
    code, summary = run(runner, ws, World())
    assert code == 0
    assert summary["stop_reason"] == "budget"
    assert summary["stop_detail"] == "budget max_requests = 19 reached (19 spent)"
    db = ws / "mixseek.db"
    assert rows(db, "SELECT DISTINCT round_number FROM leader_board") == [(1,)]
    assert rows(db, "SELECT count(*) FROM round_status WHERE round_number > 1") == [(0,)]
    assert rows(db, "SELECT sum(requests) FROM model_calls") == [(19,)]
    assert summary["usage"]["requests"] == 19  # type: ignore[index]
    assert {t["exit_reason"] for t in summary["teams"]} == {"budget"}  # type: ignore[union-attr]


def test_request_budget_reached_before_the_judgments_stops_for_the_budget(
    tmp_path: Path, runner: CliRunner
) -> None:
    # round 1 takes exactly 16 requests; the judgments after it would be the 17th and on
    ws = write_workspace(tmp_path / "ws", extra="max_requests = 16")
    code, summary = run(runner, ws, World())
    assert code == 0
    assert summary["stop_reason"] == "budget"
    assert summary["stop_detail"] == "budget max_requests = 16 reached (16 spent)"
    assert {t["exit_reason"] for t in summary["teams"]} == {"budget"}  # type: ignore[union-attr]
    db = ws / "mixseek.db"
    assert rows(db, "SELECT count(*) FROM leader_board WHERE round_number = 1") == [(3,)]
    # no judgment was made, so none is stored: a resume judges round 1 again
    assert rows(db, "SELECT count(*) FROM round_status WHERE should_continue IS NOT NULL") == [(0,)]
    assert rows(db, "SELECT sum(requests) FROM model_calls") == [(16,)]


def test_token_budget_cuts_running_work_at_the_limit(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", extra="max_total_tokens = 1400")
    code, summary = run(runner, ws, World())
    assert code == 0
    assert summary["stop_reason"] == "budget"
    assert str(summary["stop_detail"]).startswith("budget max_total_tokens = 1400 reached")
    db = ws / "mixseek.db"
    assert rows(db, "SELECT count(*) FROM leader_board WHERE round_number = 1") == [(3,)]
    # round 1 and its judgments took 1310 tokens, so round 2 started and was cut part-way
    ((round_two,),) = rows(db, "SELECT count(*) FROM leader_board WHERE round_number = 2")
    assert isinstance(round_two, int) and round_two < 3
    assert rows(db, "SELECT count(*) FROM leader_board WHERE round_number > 2") == [(0,)]
    (spent,) = rows(db, "SELECT sum(input_tokens + output_tokens) FROM model_calls")[0]
    # nothing is requested once the limit is reached; requests already in flight may finish
    assert 1400 <= int(spent) < 1400 + 3 * 160  # type: ignore[call-overload]
    assert rows(db, "SELECT count(*) FROM round_status WHERE status IN ('failed', 'timeout')") == [(0,)]


def test_slow_team_times_out_and_is_isolated(tmp_path: Path, runner: CliRunner) -> None:
    # beta never answers; the others' rounds take a fraction of a second, far inside the timeout
    ws = write_workspace(tmp_path / "ws", max_rounds=2, extra="timeout_per_team_seconds = 8")
    code, summary = run(runner, ws, World(leader_delays={"beta": 24 * 3600.0}))
    assert code == 1
    assert summary["status"] == "partial_failure"
    db = ws / "mixseek.db"
    assert rows(db, "SELECT status, error_message FROM round_status WHERE team_id = 'beta'") == [
        ("timeout", "team round timed out after 8 s")
    ]
    assert rows(db, "SELECT team_id, count(*) FROM leader_board GROUP BY 1 ORDER BY 1") == [
        ("alpha", 2),
        ("gamma", 2),
    ]


def test_execution_timeout_stops_everything(tmp_path: Path, runner: CliRunner) -> None:
    # round 1 is quick; every leader of round 2 waits forever, so only the execution timeout ends it
    ws = write_workspace(tmp_path / "ws", extra="execution_timeout_seconds = 6.0")
    code, summary = run(runner, ws, World(leaders_hang_from_round=2))
    assert summary["stop_reason"] == "execution_timeout"
    assert summary["stop_detail"] == "execution timeout of 6 s"
    assert code == 0
    assert rows(ws / "mixseek.db", "SELECT count(*) FROM leader_board WHERE round_number = 2") == [(0,)]
    db = ws / "mixseek.db"
    assert rows(db, "SELECT count(*) FROM leader_board WHERE round_number = 1") == [(3,)]
    assert rows(db, "SELECT status FROM executions") == [("completed",)]
