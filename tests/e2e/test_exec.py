"""`mixseek exec` end to end through the CLI, with scripted models and a real DuckDB file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic_ai import ModelMessagesTypeAdapter
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .db import rows
from .scripted import World, write_workspace


def run_exec(runner: CliRunner, ws: Path, world: World, *args: str) -> tuple[int, dict[str, object], str]:
    with override_models(world.models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json", *args])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}, result.stderr


def ranking_lines(prompt: str) -> list[str]:
    section = prompt.split("現在のリーダーボードに基づく順位:\n\n", 1)[1].split("\n\n", 1)[0]
    return [line.replace("**", "").replace(" (あなたのチーム)", "") for line in section.splitlines()]


def test_three_teams_four_rounds_exact_rows(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    world = World()
    code, summary, stderr = run_exec(runner, ws, world)
    assert code == 0, stderr
    db = ws / "mixseek.db"
    execution_id = summary["execution_id"]

    assert rows(
        db, "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"
    ) == [
        ("alpha", 1, 60.0, False),
        ("alpha", 2, 75.0, False),
        ("alpha", 3, 80.0, True),
        ("beta", 1, 70.0, False),
        ("beta", 2, 72.0, True),
        ("gamma", 1, 50.0, False),
        ("gamma", 2, 75.0, False),
        ("gamma", 3, 78.0, False),
        ("gamma", 4, 99.0, True),
    ]
    assert rows(
        db,
        "SELECT team_id, round_number, status, should_continue, exit_reason, judgment_confidence "
        "FROM round_status ORDER BY 1, 2",
    ) == [
        ("alpha", 1, "completed", True, None, 0.8),
        ("alpha", 2, "completed", True, None, 0.8),
        ("alpha", 3, "completed", False, "judgment", 0.8),
        ("beta", 1, "completed", True, None, 0.8),
        ("beta", 2, "completed", False, "judgment", 0.8),
        ("gamma", 1, "completed", True, None, 0.8),
        ("gamma", 2, "completed", True, None, 0.8),
        ("gamma", 3, "completed", True, None, 0.8),
        ("gamma", 4, "completed", False, "max_rounds", None),
    ]
    assert rows(db, "SELECT execution_id, status FROM executions") == [(execution_id, "completed")]
    assert rows(db, "SELECT count(*), count(DISTINCT execution_id) FROM round_history") == [(9, 1)]
    history, record = rows(
        db,
        "SELECT message_history, member_submissions_record FROM round_history "
        "WHERE team_id = 'alpha' AND round_number = 2",
    )[0]
    messages = ModelMessagesTypeAdapter.validate_json(str(history))
    assert len(messages) == 4
    member_record = json.loads(str(record))
    assert [(s["agent_name"], s["status"], s["content"]) for s in member_record["submissions"]] == [
        ("helper", "SUCCESS", "member did round 2")
    ]
    feedback, details = rows(
        db,
        "SELECT evaluation_feedback, score_details FROM leader_board WHERE team_id='beta' AND round_number=1",
    )[0]
    assert feedback == (
        "[clarity_coherence] beta answer v1 ok\n[coverage] beta answer v1 ok\n[relevance] beta answer v1 ok"
    )
    assert json.loads(str(details))["coverage"] == {"score": 70.0, "comment": "beta answer v1 ok"}

    # usage per call site
    assert rows(db, "SELECT site, sum(requests) FROM model_calls GROUP BY site ORDER BY site") == [
        ("evaluator metric 'clarity_coherence'", 9),
        ("evaluator metric 'coverage'", 9),
        ("evaluator metric 'relevance'", 9),
        ("judgment", 8),
        ("leader of team 'alpha'", 6),
        ("leader of team 'beta'", 2),
        ("leader of team 'gamma'", 8),
        ("member 'helper' of team 'alpha'", 3),
        ("member 'helper' of team 'gamma'", 4),
    ]
    usage = summary["usage"]
    assert isinstance(usage, dict)
    assert usage["requests"] == 58
    assert usage["input_tokens"] == 16 * 100 + 7 * 30 + 27 * 50 + 8 * 40

    # the summary
    assert summary["status"] == "completed"
    assert summary["stop_reason"] == "finished"
    assert summary["best"] == {
        "team_id": "gamma",
        "team_name": "Gamma",
        "round_number": 4,
        "score": 99.0,
        "content": "gamma answer v4 (member did round 4)",
    }
    assert summary["leaderboard"] == [
        {"team_id": "gamma", "team_name": "Gamma", "max_score": 99.0, "total_rounds": 4},
        {"team_id": "alpha", "team_name": "Alpha", "max_score": 80.0, "total_rounds": 3},
        {"team_id": "beta", "team_name": "Beta", "max_score": 72.0, "total_rounds": 2},
    ]
    assert summary["rounds_run"] == 4

    # every team's round-2 prompt shows the same leaderboard (after round 1 of every team)
    boards = {team: ranking_lines(world.team_prompts[(team, 2)]) for team in ("alpha", "beta", "gamma")}
    assert (
        boards["alpha"]
        == boards["beta"]
        == boards["gamma"]
        == [
            "#1 Beta - スコア: 70.00/100 (ラウンド数: 1)",
            "#2 Alpha - スコア: 60.00/100 (ラウンド数: 1)",
            "#3 Gamma - スコア: 50.00/100 (ラウンド数: 1)",
        ]
    )
    assert (
        "**#2 Alpha (あなたのチーム) - スコア: 60.00/100 (ラウンド数: 1)**"
        in world.team_prompts[("alpha", 2)]
    )
    assert "現在、3チーム中2位です。素晴らしい成績です！" in world.team_prompts[("alpha", 2)]
    assert "[coverage] alpha answer v1 ok" not in world.team_prompts[("alpha", 2)]
    assert '"comment": "alpha answer v1 ok"' in world.team_prompts[("alpha", 2)]

    # the structured log has one line per event
    events = [json.loads(line) for line in (ws / "logs" / f"{execution_id}.jsonl").read_text().splitlines()]
    assert events[0]["kind"] == "execution_started"
    assert events[-1]["kind"] == "execution_finished"
    assert sum(e["kind"] == "team_round_finished" for e in events) == 9
    assert "team_round_finished team=gamma round=4 status=completed score=99.0" in stderr


def test_one_failing_team_is_isolated_exit_1(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    world = World(failing_teams={"beta"})
    code, summary, _ = run_exec(runner, ws, world)
    assert code == 1
    assert summary["status"] == "partial_failure"
    db = ws / "mixseek.db"
    assert rows(db, "SELECT team_id, round_number FROM leader_board ORDER BY 1, 2") == [
        ("alpha", 1),
        ("alpha", 2),
        ("gamma", 1),
        ("gamma", 2),
    ]
    assert rows(db, "SELECT status, error_message FROM round_status WHERE team_id = 'beta'") == [
        ("failed", "RuntimeError: beta leader is broken")
    ]
    teams = {t["team_id"]: t for t in summary["teams"]}  # type: ignore[union-attr]
    assert teams["beta"]["status"] == "failed"
    assert teams["beta"]["error"] == "RuntimeError: beta leader is broken"
    assert rows(db, "SELECT status FROM executions") == [("partial_failure",)]


def test_all_teams_failing_exit_2(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    world = World(failing_teams={"alpha", "beta", "gamma"})
    code, summary, _ = run_exec(runner, ws, world)
    assert code == 2
    assert summary["status"] == "failed"
    assert summary["best"] is None
    assert rows(ws / "mixseek.db", "SELECT count(*) FROM leader_board") == [(0,)]


def test_min_rounds_forces_continuation_without_judgment(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=3, min_rounds=3)
    world = World()
    code, _, _ = run_exec(runner, ws, world)
    assert code == 0
    assert world.judgment_prompts == []
    assert rows(
        ws / "mixseek.db",
        "SELECT team_id, round_number, should_continue, exit_reason FROM round_status "
        "WHERE team_id = 'beta' ORDER BY 2",
    ) == [("beta", 1, True, None), ("beta", 2, True, None), ("beta", 3, False, "max_rounds")]


def test_judge_on_final_round_calls_judgment_on_the_last_round(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    (ws / "configs" / "judgment.toml").write_text(
        '[judgment]\nmodel = "script:judgment"\njudge_on_final_round = true\n', encoding="utf-8"
    )
    world = World()
    code, _, _ = run_exec(runner, ws, world)
    assert code == 0
    assert len(world.judgment_prompts) == 3
    assert all(re.search(r"ラウンド 1 が終了しました", p) for p in world.judgment_prompts)
    assert rows(ws / "mixseek.db", "SELECT DISTINCT exit_reason, judgment_confidence FROM round_status") == [
        ("max_rounds", 0.8)
    ]


def test_dry_run_spends_nothing(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    world = World()
    code, _, stderr = run_exec(runner, ws, world, "--dry-run")
    assert code == 0, stderr
    assert world.team_prompts == {}
    assert rows(ws / "mixseek.db", "SELECT count(*) FROM executions") == [(0,)]


def test_dry_run_reports_missing_credentials(workspace: Path, runner: CliRunner, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["exec", "p", "-w", str(workspace), "--dry-run"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0] == (
        "error: model 'openai:gpt-4o-mini' for leader of team 'analysts' needs credentials: "
        "set the environment variable OPENAI_API_KEY"
    )
    assert len(lines) == 8  # every role that uses the model: 5 agents, 2 metrics, judgment


def test_exec_without_prompt(workspace: Path, runner: CliRunner) -> None:
    result = runner.invoke(app, ["exec", "-w", str(workspace)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: PROMPT: give the task as an argument or with --prompt-file (or --resume EXECUTION_ID)"
    )


def test_resume_unknown_execution(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    code, _, stderr = run_exec_resume(runner, ws, "nope")
    assert code == 2
    assert stderr.strip() == f"error: --resume: no execution 'nope' in {ws / 'mixseek.db'}"


def run_exec_resume(runner: CliRunner, ws: Path, execution_id: str) -> tuple[int, str, str]:
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "--resume", execution_id, "-w", str(ws), "-f", "json"])
    return result.exit_code, result.stdout, result.stderr
