"""`mixseek runs list|show|export` on a real execution made through the CLI with scripted models."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.report.markdown_escape import code_block
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.models import RoundKey, RoundRecord

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"
HAND_ID = "hand-made-1"
HAND_PROMPT = "Show a ```python``` block"
TRICKY = "Here is code:\n```python\nprint('hi')\n```\nand a longer fence: ````\nend"

ROUNDS = {  # team -> [(round, score, should_continue, exit_reason, reasoning, confidence)]
    "gamma": [
        (1, 50.0, True, None, "gamma after 1", 0.8),
        (2, 75.0, True, None, "gamma after 2", 0.8),
        (3, 78.0, True, None, "gamma after 3", 0.8),
        (4, 99.0, False, "max_rounds", None, None),
    ],
    "alpha": [
        (1, 60.0, True, None, "alpha after 1", 0.8),
        (2, 75.0, True, None, "alpha after 2", 0.8),
        (3, 80.0, False, "judgment", "alpha after 3", 0.8),
    ],
    "beta": [
        (1, 70.0, True, None, "beta after 1", 0.8),
        (2, 72.0, False, "judgment", "beta after 2", 0.8),
    ],
}
MEMBERS = {"alpha": 1, "beta": 0, "gamma": 1}


def submission(team: str, round_number: int) -> str:
    return f"{team} answer v{round_number}" + (f" (member did round {round_number})" if MEMBERS[team] else "")


@dataclass(frozen=True)
class Runs:
    ws: Path
    execution_id: str


async def _hand_made(db: Path) -> None:
    """A second execution, still running: one scored round with backticks, one timed-out team."""
    store = AggregationStore(db)
    await store.create_execution(HAND_ID, HAND_PROMPT, {})
    started = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    await store.save_round(
        RoundRecord(
            execution_id=HAND_ID,
            team_id="delta",
            team_name="Delta | D",
            round_number=1,
            submission_content=TRICKY,
            evaluation_score=88.5,
            evaluation_feedback="[style] uses | pipes and\nlines",
            score_details={"style": {"score": 88.5, "comment": "uses | pipes and\nlines"}},
            member_submissions_record={
                "team_id": "delta",
                "team_name": "Delta | D",
                "round_number": 1,
                "submissions": [
                    {"agent_name": "a", "agent_type": "plain", "content": "ok", "status": "SUCCESS"},
                    {"agent_name": "b", "agent_type": "plain", "content": "", "status": "ERROR"},
                    {"agent_name": "c", "agent_type": "plain", "content": "ok", "status": "SUCCESS"},
                ],
            },
            started_at=started,
            ended_at=started,
            should_continue=True,
            judgment_reasoning="keep going",
            judgment_confidence=0.5,
        )
    )
    await store.mark_round_started(RoundKey(HAND_ID, "epsilon", 1), started_at=started)
    await store.mark_round_failed(
        RoundKey(HAND_ID, "epsilon", 1), "timeout", "timed out after 5 s", ended_at=started
    )
    await store.record_model_calls(
        HAND_ID,
        [{"site": "leader of team 'delta'", "model": "m", "input_tokens": 10, "output_tokens": 5}],
    )
    await store.aclose()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """One scripted execution (3 teams, up to 4 rounds) plus a hand-made running one."""
    with pytest.MonkeyPatch.context() as mp:
        for var in ("MIXSEEK_WORKSPACE", "MIXSEEK_TEAM_USER_PROMPT", "MIXSEEK_EVALUATOR_USER_PROMPT"):
            mp.delenv(var, raising=False)
        mp.delenv("MIXSEEK_JUDGMENT_USER_PROMPT", raising=False)
        ws = write_workspace(tmp_path_factory.mktemp("runs") / "ws")
        with override_models(World().models()):
            result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
        assert result.exit_code == 0, result.output
        asyncio.run(_hand_made(ws / "mixseek.db"))
    return Runs(ws, json.loads(result.stdout)["execution_id"])


def invoke(runner: CliRunner, runs: Runs, *args: str) -> Any:
    result = runner.invoke(app, ["runs", *args, "-w", str(runs.ws)])
    assert "Traceback" not in result.output
    return result


def run_json(runner: CliRunner, runs: Runs, *args: str) -> Any:
    result = invoke(runner, runs, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- list -----------------------------------------------------------------------------


def test_list_json_newest_first_with_live_values_for_a_running_execution(
    runner: CliRunner, runs: Runs
) -> None:
    entries = run_json(runner, runs, "list", "-f", "json")
    for entry in entries:
        datetime.fromisoformat(entry.pop("started_at"))
        assert entry.pop("duration_seconds") >= 0
    assert entries == [
        {
            "execution_id": HAND_ID,
            "status": "running",
            "user_prompt": HAND_PROMPT,
            "best_team": "delta",
            "best_score": 88.5,
            "rounds_run": 1,
            "total_tokens": 15,
        },
        {
            "execution_id": runs.execution_id,
            "status": "completed",
            "user_prompt": "最良の回答を",
            "best_team": "gamma",
            "best_score": 99.0,
            "rounds_run": 4,
            "total_tokens": 3480 + 549,  # input + output tokens of all 58 requests
        },
    ]


def test_list_text_and_limit(runner: CliRunner, runs: Runs) -> None:
    result = invoke(runner, runs, "list")
    assert result.exit_code == 0
    header, first, second = result.stdout.splitlines()
    assert re.split(r" {2,}", header) == [
        "execution",
        "status",
        "started (UTC)",
        "duration",
        "best team",
        "best score",
        "rounds",
        "tokens",
    ]
    assert first.split()[:2] == [HAND_ID, "running"]
    assert first.split()[-4:] == ["delta", "88.50", "1", "15"]
    assert second.split()[:2] == [runs.execution_id, "completed"]
    assert second.split()[-4:] == ["gamma", "99.00", "4", "4029"]
    assert header.index("status") == first.index("running") == second.index("completed")

    limited = run_json(runner, runs, "list", "--limit", "1", "-f", "json")
    assert [e["execution_id"] for e in limited] == [HAND_ID]


def test_list_without_a_database_file_creates_none(tmp_path: Path, runner: CliRunner) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    result = runner.invoke(app, ["runs", "list", "-w", str(ws)])
    assert result.exit_code == 0
    assert result.stdout == f"no executions yet in {ws} (run 'mixseek exec')\n"
    result = runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"])
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])
    assert not (ws / "mixseek.db").exists()


def test_list_of_an_empty_database_and_workspace_from_env(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    asyncio.run(AggregationStore(ws / "mixseek.db").initialize())
    monkeypatch.setenv("MIXSEEK_WORKSPACE", str(ws))
    result = runner.invoke(app, ["runs", "list"])
    assert (result.exit_code, result.stdout) == (0, f"no executions yet in {ws} (run 'mixseek exec')\n")


def test_bad_output_format_is_one_line(runner: CliRunner, runs: Runs) -> None:
    result = invoke(runner, runs, "list", "-f", "yaml")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --output-format: must be 'text' or 'json' (got 'yaml')\n",
    )


# -- show -----------------------------------------------------------------------------


def test_show_json_leaderboard_rounds_comments_and_judgments(runner: CliRunner, runs: Runs) -> None:
    doc = run_json(runner, runs, "show", runs.execution_id, "-f", "json")
    assert doc["execution_id"] == runs.execution_id
    assert (doc["user_prompt"], doc["status"], doc["stop_reason"], doc["stop_detail"]) == (
        "最良の回答を",
        "completed",
        "finished",
        None,
    )
    assert doc["rounds_run"] == 4
    assert doc["leaderboard"] == [
        {"team_id": "gamma", "team_name": "Gamma", "max_score": 99.0, "total_rounds": 4},
        {"team_id": "alpha", "team_name": "Alpha", "max_score": 80.0, "total_rounds": 3},
        {"team_id": "beta", "team_name": "Beta", "max_score": 72.0, "total_rounds": 2},
    ]
    assert [
        (t["team_id"], t["position"], t["status"], t["rounds_completed"], t["best_round"], t["exit_reason"])
        for t in doc["teams"]
    ] == [
        ("gamma", 1, "completed", 4, 4, "max_rounds"),
        ("alpha", 2, "completed", 3, 3, "judgment"),
        ("beta", 3, "completed", 2, 2, "judgment"),
    ]
    for team in doc["teams"]:
        tid = team["team_id"]
        assert [
            (
                r["round_number"],
                r["score"],
                r["judgment"]["should_continue"],
                r["judgment"]["exit_reason"],
                r["judgment"]["reasoning"],
                r["judgment"]["confidence"],
            )
            for r in team["rounds"]
        ] == ROUNDS[tid]
        for r in team["rounds"]:
            n = r["round_number"]
            comment = f"{tid} answer v{n} ok"
            assert r["metrics"] == {
                m: {"score": r["score"], "comment": comment}
                for m in ("clarity_coherence", "coverage", "relevance")
            }
            assert (
                r["feedback"] == f"[clarity_coherence] {comment}\n[coverage] {comment}\n[relevance] {comment}"
            )
            assert r["members"] == {"total": MEMBERS[tid], "succeeded": MEMBERS[tid], "failed": 0}
            assert (r["status"], r["error"], r["is_final"]) == ("completed", None, n == len(ROUNDS[tid]))
            assert "submission" not in r
    assert doc["best"] == {
        "team_id": "gamma",
        "team_name": "Gamma",
        "round_number": 4,
        "score": 99.0,
        "content": "gamma answer v4 (member did round 4)",
    }
    assert doc["usage"] == {"requests": 58, "input_tokens": 3480, "output_tokens": 549}
    assert {site: u["requests"] for site, u in doc["usage_by_site"].items()} == {
        "evaluator metric 'clarity_coherence'": 9,
        "evaluator metric 'coverage'": 9,
        "evaluator metric 'relevance'": 9,
        "judgment": 8,
        "leader of team 'alpha'": 6,
        "leader of team 'beta'": 2,
        "leader of team 'gamma'": 8,
        "member 'helper' of team 'alpha'": 3,
        "member 'helper' of team 'gamma'": 4,
    }


def test_show_text_key_lines(runner: CliRunner, runs: Runs) -> None:
    result = invoke(runner, runs, "show", runs.execution_id)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"execution {runs.execution_id}: completed (finished)"
    assert lines[1] == "prompt: 最良の回答を"
    assert lines[2].endswith(", 4 round(s)")
    start = lines.index("leaderboard")
    assert lines[start + 1 : start + 5] == [
        "  #  team           best score  rounds",
        "  1  Gamma (gamma)  99.00       4",
        "  2  Alpha (alpha)  80.00       3",
        "  3  Beta (beta)    72.00       2",
    ]
    alpha = lines.index(
        "team Alpha (alpha): completed, 3 round(s) scored, best round 3 (80.00), stopped because judgment"
    )
    assert lines[alpha + 1 : alpha + 8] == [
        "  round 1: 60.00/100",
        "    metric             score  comment",
        "    clarity_coherence  60.00  alpha answer v1 ok",
        "    coverage           60.00  alpha answer v1 ok",
        "    relevance          60.00  alpha answer v1 ok",
        "    judgment: continue (confidence 0.80): alpha after 1",
        "    members: 1 succeeded, 0 failed",
    ]
    assert "  round 3: 80.00/100 (final)" in lines
    assert "    judgment: stop (judgment, confidence 0.80): alpha after 3" in lines
    assert "    judgment: stop (max_rounds)" in lines
    win = lines.index("winning submission: Gamma (gamma), round 4, score 99.00/100")
    assert lines[win + 1] == "gamma answer v4 (member did round 4)"
    assert "usage: 58 requests, 3480 input + 549 output tokens" in lines
    assert "  member 'helper' of team 'gamma'       4         120           20" in lines


def test_show_running_execution_derives_standings_from_rows(runner: CliRunner, runs: Runs) -> None:
    doc = run_json(runner, runs, "show", HAND_ID, "-f", "json")
    assert (doc["status"], doc["stop_reason"], doc["rounds_run"]) == ("running", None, 1)
    assert doc["leaderboard"] == [
        {"team_id": "delta", "team_name": "Delta | D", "max_score": 88.5, "total_rounds": 1}
    ]
    delta, epsilon = doc["teams"]
    assert {k: v for k, v in delta.items() if k != "rounds"} == {
        "team_id": "delta",
        "team_name": "Delta | D",
        "kind": None,  # the hand-written config snapshot does not describe the team
        "position": 1,
        "status": "running",
        "rounds_completed": 1,
        "best_round": 1,
        "best_score": 88.5,
        "exit_reason": None,
        "error": None,
    }
    (round_1,) = delta["rounds"]
    assert round_1["members"] == {"total": 3, "succeeded": 2, "failed": 1}
    assert round_1["judgment"] == {
        "should_continue": True,
        "exit_reason": None,
        "reasoning": "keep going",
        "confidence": 0.5,
    }
    assert {k: v for k, v in epsilon.items() if k != "rounds"} == {
        "team_id": "epsilon",
        "team_name": "epsilon",
        "kind": None,  # the hand-written config snapshot does not describe the team
        "position": None,
        "status": "failed",
        "rounds_completed": 0,
        "best_round": None,
        "best_score": None,
        "exit_reason": None,
        "error": "timed out after 5 s",
    }
    assert [(r["status"], r["score"], r["error"]) for r in epsilon["rounds"]] == [
        ("timeout", None, "timed out after 5 s")
    ]
    assert doc["best"]["content"] == TRICKY
    assert doc["usage"] == {"requests": 1, "input_tokens": 10, "output_tokens": 5}

    text = invoke(runner, runs, "show", HAND_ID).stdout.splitlines()
    assert "team epsilon (epsilon): failed, 0 round(s) scored, error: timed out after 5 s" in text
    assert "  round 1: -/100 [timeout]" in text
    assert "    style   88.50  uses | pipes and lines" in text
    assert "    members: 2 succeeded, 1 failed" in text


def test_unknown_execution_is_one_line(runner: CliRunner, runs: Runs, tmp_path: Path) -> None:
    db = runs.ws / "mixseek.db"
    for command in ("show", "export"):
        extra = ["--format", "json"] if command == "export" else []
        result = invoke(runner, runs, command, "nope", *extra)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == f"error: runs {command}: no execution 'nope' in {db}\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["runs", "show", "nope", "-w", str(empty)])
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: runs show: no execution 'nope' in {empty / 'mixseek.db'}\n",
    )
    assert not (empty / "mixseek.db").exists()


# -- export ---------------------------------------------------------------------------


def test_export_json_round_trips_with_every_submission(runner: CliRunner, runs: Runs) -> None:
    shown = run_json(runner, runs, "show", runs.execution_id, "-f", "json")
    exported = run_json(runner, runs, "export", runs.execution_id, "--format", "json")
    assert json.loads(json.dumps(exported)) == exported
    full_only = {"submission", "submission_format", "member_submissions", "usage"}
    for team in exported["teams"]:
        tid = team["team_id"]
        assert [r["submission"] for r in team["rounds"]] == [submission(tid, n) for n, *_ in ROUNDS[tid]]
        for r in team["rounds"]:
            n = r["round_number"]
            assert [(m["agent_name"], m["status"], m["content"]) for m in r["member_submissions"]] == (
                [("helper", "SUCCESS", f"member did round {n}")] if MEMBERS[tid] else []
            )
            assert r["usage"]["evaluation"]["requests"] == 3
            for key in full_only:
                del r[key]
    assert exported == shown


def test_export_markdown_report(runner: CliRunner, runs: Runs) -> None:
    result = invoke(runner, runs, "export", runs.execution_id, "--format", "markdown")
    assert result.exit_code == 0
    md = result.stdout
    lines = md.splitlines()
    assert lines[0] == "# mixseek run: 最良の回答を"
    start = lines.index("## Leaderboard")
    assert lines[start + 2 : start + 7] == [
        "| # | team | best score | rounds |",
        "|---|---|---|---|",
        "| 1 | Gamma (gamma) | 99.00 | 4 |",
        "| 2 | Alpha (alpha) | 80.00 | 3 |",
        "| 3 | Beta (beta) | 72.00 | 2 |",
    ]
    for team, rounds in ROUNDS.items():
        team_heading = lines.index(f"## Team {team.title()} ({team})")
        for n, score, *_ in rounds:
            final = " (final)" if n == len(rounds) else ""
            heading = lines.index(f"### Round {n}: {score:.2f}/100{final}", team_heading)
            section = lines[heading : heading + 20]
            assert f"| coverage | {score:.2f} | {team} answer v{n} ok |" in section
            assert f"Submission:\n\n    {submission(team, n)}\n" in "\n".join(section)
    assert "- judgment: stop (judgment, confidence 0.80): beta after 2" in lines
    alpha = lines.index("## Team Alpha (alpha)")
    assert lines[alpha + 2 : alpha + 6] == [
        "- status: completed",
        "- rounds scored: 3",
        "- best round: 3 (80.00)",
        "- stopped because: judgment",
    ]
    assert "| member 'helper' of team 'alpha' | 3 | 90 | 15 |" in lines
    blocks = [t for t in MarkdownIt().parse(md) if t.type == "code_block"]
    assert [t.content for t in blocks] == [
        submission("gamma", 4) + "\n",
        *(submission(team, n) + "\n" for team, rounds in ROUNDS.items() for n, *_ in rounds),
    ]


def test_export_markdown_keeps_submissions_with_backticks_whole(runner: CliRunner, runs: Runs) -> None:
    result = invoke(runner, runs, "export", HAND_ID, "--format", "markdown")
    assert result.exit_code == 0
    md = result.stdout
    title = HAND_PROMPT.replace("`", "\\`")  # a code span in a title would show as code, not as typed
    assert md.startswith(f"# mixseek run: {title}\n\n- execution: `{HAND_ID}`\n- status: running\n")
    assert code_block(TRICKY) in md
    assert "| 1 | Delta \\| D (delta) | 88.50 | 1 |" in md.splitlines()
    assert "| style | 88.50 | uses \\| pipes and<br>lines |" in md.splitlines()
    assert "### Round 1: -/100" in md and "status: timeout: timed out after 5 s" in md
    tokens = MarkdownIt().enable("table").parse(md)
    assert [t.content for t in tokens if t.type == "code_block"] == [TRICKY + "\n", TRICKY + "\n"]
    cells = [t.content for t in tokens if t.type == "inline"]
    assert "Delta | D (delta)" in cells  # the escaped pipe stays inside its cell
    assert "uses | pipes and<br>lines" in cells


def test_export_to_file_refuses_to_overwrite(runner: CliRunner, runs: Runs, tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    result = invoke(runner, runs, "export", runs.execution_id, "--format", "markdown", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {target} (markdown, execution {runs.execution_id})\n"
    report = target.read_text(encoding="utf-8")
    assert report == invoke(runner, runs, "export", runs.execution_id, "--format", "markdown").stdout

    again = invoke(runner, runs, "export", runs.execution_id, "--format", "json", "--output", str(target))
    assert (again.exit_code, again.stdout) == (2, "")
    assert again.stderr == f"error: --output: {target} already exists (pass --force to overwrite)\n"
    assert target.read_text(encoding="utf-8") == report

    forced = invoke(
        runner, runs, "export", runs.execution_id, "--format", "json", "-o", str(target), "--force"
    )
    assert forced.exit_code == 0, forced.output
    assert json.loads(target.read_text(encoding="utf-8"))["execution_id"] == runs.execution_id

    missing_dir = tmp_path / "no" / "such.json"
    failed = invoke(runner, runs, "export", runs.execution_id, "--format", "json", "-o", str(missing_dir))
    assert failed.exit_code == 2
    assert failed.stderr == f"error: --output: cannot write {missing_dir}: No such file or directory\n"


def test_export_format_is_checked(runner: CliRunner, runs: Runs) -> None:
    bad = invoke(runner, runs, "export", runs.execution_id, "--format", "pdf")
    assert (bad.exit_code, bad.stderr) == (
        2,
        "error: --format: must be 'json', 'markdown' or 'html' (got 'pdf')\n",
    )
    missing = invoke(runner, runs, "export", runs.execution_id)
    assert (missing.exit_code, missing.stderr) == (
        2,
        "error: --format: must be 'json', 'markdown' or 'html'\n",
    )


# -- concurrency ----------------------------------------------------------------------


def test_runs_reads_while_exec_writes_in_another_process(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"  # the exec holds its leaders of round 3 until this file exists
    proc = subprocess.Popen(
        [sys.executable, str(RUN_SCRIPTED), "exec", "最良の回答を", "-w", str(ws), "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "3"},
    )
    try:
        deadline = time.monotonic() + 120  # only a bound for a broken run
        while not gate.with_name("gate.waiting").exists():  # reading while rounds 1 and 2 are written
            assert proc.poll() is None and time.monotonic() < deadline, "the exec never reached round 3"
            if (ws / "mixseek.db").exists():
                listed = runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"])
                assert listed.exit_code == 0, listed.output
            time.sleep(0.05)
        (seen_running,) = json.loads(runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"]).stdout)
        result = runner.invoke(
            app, ["runs", "show", seen_running["execution_id"], "-w", str(ws), "-f", "json"]
        )
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
    finally:
        gate.touch()
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert seen_running["status"] == "running"
    assert seen_running["total_tokens"] > 0 and seen_running["rounds_run"] >= 2
    assert shown["status"] == "running" and shown["stop_reason"] is None
    assert shown["leaderboard"] and shown["best"]["team_id"] == shown["leaderboard"][0]["team_id"]
    final = runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"])
    (entry,) = json.loads(final.stdout)
    assert (entry["execution_id"], entry["status"], entry["best_team"], entry["rounds_run"]) == (
        json.loads(out)["execution_id"],
        "completed",
        "gamma",
        4,
    )
