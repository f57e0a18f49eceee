"""`mixseek bench TASKS.jsonl`: scripted teams with known scores on three tasks, two repeats.

The figures asserted are computed by hand from `world.SCORES` (every repeat scores the same):

    task  tags          alpha beta gamma   run winner(s)
    t1    easy           80    60    80    alpha, gamma (share)
    t2    easy, math     90    70    50    alpha
    t3    math           75    70    60    alpha
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from benchrun.world import TASKS_JSONL, BenchWorld, write_bench_workspace
from e2e.db import rows
from mixseek.cli.app import app
from mixseek.llm import override_models

RUN_BENCH = Path(__file__).with_name("run_bench.py")


def bench(ws: Path, tasks: Path, *args: str, world: BenchWorld | None = None) -> Result:
    with override_models((world or BenchWorld()).models()):
        return CliRunner().invoke(app, ["bench", str(tasks), "-w", str(ws), *args])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return write_bench_workspace(tmp_path / "ws")


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text(TASKS_JSONL, encoding="utf-8")
    return path


def approx(value: float) -> Any:
    return pytest.approx(value, abs=1e-9)


def test_report_has_exact_win_rates_means_ranks_and_sign_tests(ws: Path, tasks: Path) -> None:
    world = BenchWorld()
    result = bench(ws, tasks, "--repeat", "2", "-f", "json", world=world)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)

    assert report["runs"] == {"planned": 6, "scored": 6, "unscored": 0, "missing": 0}
    teams = {t["team_id"]: t for t in report["teams"]}
    assert [t["team_id"] for t in report["teams"]] == ["alpha", "gamma", "beta"]  # by win rate
    assert teams["alpha"]["wins"] == approx(5.0)  # t1 shared twice, t2 and t3 twice each
    assert teams["alpha"]["win_rate"]["mean"] == approx(5 / 6)
    assert teams["gamma"]["win_rate"]["mean"] == approx(1 / 6)
    assert teams["beta"]["win_rate"] == {"mean": 0.0, "low": 0.0, "high": 0.0}
    assert teams["alpha"]["mean_score"]["mean"] == approx((80 + 90 + 75) / 3)
    assert teams["beta"]["mean_score"]["mean"] == approx((60 + 70 + 70) / 3)
    assert teams["gamma"]["mean_score"]["mean"] == approx((80 + 50 + 60) / 3)
    assert teams["alpha"]["mean_rank"]["mean"] == approx((1.5 + 1 + 1) / 3)
    assert teams["beta"]["mean_rank"]["mean"] == approx((3 + 2 + 2) / 3)
    assert teams["gamma"]["mean_rank"]["mean"] == approx((1.5 + 3 + 3) / 3)
    for team in teams.values():
        for key in ("win_rate", "mean_score", "mean_rank"):
            assert team[key]["low"] <= team[key]["mean"] <= team[key]["high"]

    pairs = {(p["team"], p["opponent"]): p for p in report["pairwise"]}
    assert pairs[("alpha", "gamma")] == {
        "team": "alpha", "opponent": "gamma", "wins": 4, "losses": 0, "ties": 2,
        "task_wins": 2, "task_losses": 0, "task_ties": 1, "p_value": 0.5,
    }  # fmt: skip
    assert pairs[("alpha", "beta")] == {
        "team": "alpha", "opponent": "beta", "wins": 6, "losses": 0, "ties": 0,
        "task_wins": 3, "task_losses": 0, "task_ties": 0, "p_value": 0.25,
    }  # fmt: skip
    assert pairs[("gamma", "beta")] == {
        "team": "gamma", "opponent": "beta", "wins": 2, "losses": 4, "ties": 0,
        "task_wins": 1, "task_losses": 2, "task_ties": 0, "p_value": 1.0,
    }  # fmt: skip

    tags = {g["tag"]: g for g in report["tags"]}
    assert tags["easy"]["mean_scores"] == {"alpha": 85.0, "beta": 65.0, "gamma": 65.0}
    assert tags["math"]["mean_scores"] == {"alpha": 82.5, "beta": 70.0, "gamma": 55.0}
    assert [(t["task_id"], t["winners"]) for t in report["tasks"]] == [
        ("t1", ["alpha", "gamma"]),
        ("t2", ["alpha"]),
        ("t3", ["alpha"]),
    ]

    # every run is an ordinary execution of the store, listed by `runs list`, tied to the bench
    db = ws / "mixseek.db"
    bench_id = report["bench_id"]
    assert rows(db, "SELECT bench_id, task_count, repeats, tasks_sha256 FROM benches") == [
        (bench_id, 3, 2, report["tasks_sha256"])
    ]
    runs = rows(
        db,
        "SELECT r.task_id, r.repeat_number, r.status, e.status, e.user_prompt, e.reference FROM bench_runs r "
        "JOIN executions e USING (execution_id) ORDER BY 1, 2",
    )
    assert runs == [
        ("t1", 1, "completed", "completed", "TASK t1: name a colour", None),
        ("t1", 2, "completed", "completed", "TASK t1: name a colour", None),
        ("t2", 1, "completed", "completed", "TASK t2: add 2 and 3", "5"),
        ("t2", 2, "completed", "completed", "TASK t2: add 2 and 3", "5"),
        ("t3", 1, "completed", "completed", "TASK t3: integrate x", None),
        ("t3", 2, "completed", "completed", "TASK t3: integrate x", None),
    ]
    assert rows(db, "SELECT count(*) FROM executions") == [(6,)]
    assert len(world.leader_calls) == 18
    listed = CliRunner().invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"])
    assert listed.exit_code == 0, listed.output
    assert len(json.loads(listed.stdout)) == 6


def test_resume_after_a_killed_bench_runs_only_what_is_missing(ws: Path, tasks: Path) -> None:
    # 3 teams, one leader call each per execution: the 7th call is the first of the third run
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    proc = subprocess.run(
        [sys.executable, str(RUN_BENCH), "bench", str(tasks), "--repeat", "2", "-w", str(ws)],
        env={**env, "BENCH_KILL_AT": "7"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -9, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith("bench bench-") and first.endswith(": 3 task(s) × 2 repeat(s) = 6 run(s)")
    bench_id = first.split()[1].rstrip(":")
    db = ws / "mixseek.db"
    before = rows(db, "SELECT task_id, repeat_number, execution_id, status FROM bench_runs ORDER BY 2, 1")
    assert [(t, r, s) for t, r, _, s in before] == [
        (("t1", 1, "completed")),
        ("t2", 1, "completed"),
        ("t3", 1, "running"),
    ]
    interrupted = before[2][2]

    world = BenchWorld()
    result = bench(ws, tasks, "--resume", bench_id, "-f", "json", world=world)
    assert result.exit_code == 0, result.output
    assert f"[3/6] task 't3' repeat 1: resuming execution {interrupted}" in result.stderr
    # the interrupted run again, then the three of the second repeat; nothing ended runs twice
    assert sorted(world.leader_calls) == sorted(
        [(team, task) for task in ("t3", "t1", "t2", "t3") for team in ("alpha", "beta", "gamma")]
    )
    after = rows(db, "SELECT task_id, repeat_number, execution_id, status FROM bench_runs ORDER BY 2, 1")
    assert after[:3] == [
        (*before[0][:3], "completed"),
        (*before[1][:3], "completed"),
        ("t3", 1, interrupted, "completed"),
    ]
    assert rows(db, "SELECT count(*), count(*) FILTER (WHERE status = 'completed') FROM executions") == [
        (6, 6)
    ]
    report = json.loads(result.stdout)
    assert report["runs"] == {"planned": 6, "scored": 6, "unscored": 0, "missing": 0}
    assert {t["team_id"]: t["wins"] for t in report["teams"]} == {"alpha": 5.0, "gamma": 1.0, "beta": 0.0}

    again = bench(ws, tasks, "--resume", bench_id, "-f", "json", world=(idle := BenchWorld()))
    assert again.exit_code == 0, again.output
    assert idle.leader_calls == []  # a finished bench only reports


def test_ctrl_c_says_how_to_resume_and_the_resumed_bench_completes(ws: Path, tasks: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    proc = subprocess.run(
        [sys.executable, str(RUN_BENCH), "bench", str(tasks), "-w", str(ws)],
        env={**env, "BENCH_SIGINT_AT": "4"},  # the first leader call of the second run
        capture_output=True,
        text=True,
        timeout=300,
    )
    bench_id = proc.stderr.splitlines()[0].split()[1].rstrip(":")
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"interrupted: resume with: mixseek bench {tasks} --resume {bench_id} -w {ws}"
    )
    db = ws / "mixseek.db"
    assert rows(
        db, "SELECT r.task_id, e.status FROM bench_runs r JOIN executions e USING (execution_id) ORDER BY 1"
    ) == [
        ("t1", "completed"),
        ("t2", "interrupted"),
    ]
    world = BenchWorld()
    result = bench(ws, tasks, "--resume", bench_id, "-f", "json", world=world)
    assert result.exit_code == 0, result.output
    assert sorted(task for _, task in world.leader_calls) == ["t2"] * 3 + ["t3"] * 3
    assert json.loads(result.stdout)["runs"]["scored"] == 3


def test_resume_needs_the_same_task_file_and_a_known_bench(ws: Path, tasks: Path, tmp_path: Path) -> None:
    first = bench(ws, tasks, "-f", "json")
    assert first.exit_code == 0, first.output
    bench_id = json.loads(first.stdout)["bench_id"]
    changed = tmp_path / "changed.jsonl"
    changed.write_text(TASKS_JSONL + '{"prompt": "TASK t4: more"}\n', encoding="utf-8")

    result = bench(ws, changed, "--resume", bench_id)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0].startswith(
        f"error: {changed}: not the task file bench {bench_id} ran"
    )
    result = bench(ws, tasks, "--resume", "bench-nope")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: --resume: no bench 'bench-nope' in {ws / 'mixseek.db'}\n",
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            '{"prompt": "TASK t1: a"}\n{"prompt": "TASK t2: b",}\n',
            "line 2: not valid JSON (Expecting property name enclosed in double quotes at column 25)",
        ),
        ('{"prompt": "TASK t1: a"}\n\n["TASK t2"]\n', "line 3: expected a JSON object, got list"),
        ('{"id": "x", "prompt": " "}\n', "line 1: 'prompt' is required and must be a non-empty string"),
        ('{"prompt": "a", "tags": "easy"}\n', "line 1: 'tags' must be a list of non-empty strings"),
        (
            '{"prompt": "a", "refrence": "b"}\n',
            "line 1: unknown key 'refrence' (allowed: id, prompt, reference, tags)",
        ),
        (
            '{"id": "a", "prompt": "a"}\n{"id": "a", "prompt": "b"}\n',
            "line 2: duplicate id 'a' (first on line 1)",
        ),
        ('{"prompt": "a"}\n{"id": 1, "prompt": "b"}\n', "line 2: duplicate id '1' (first on line 1)"),
        ("\n  \n", "no tasks (expected one JSON object a line, with at least 'prompt')"),
    ],
)
def test_bad_task_file_is_one_line_exit_2_and_nothing_started(
    ws: Path, tmp_path: Path, content: str, reason: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    world = BenchWorld()
    result = bench(ws, path, world=world)
    assert (result.exit_code, result.stderr) == (2, f"error: {path}: {reason}\n")
    assert result.stdout == ""
    assert world.leader_calls == []
    assert not (ws / "mixseek.db").exists()


def test_missing_task_file_and_bad_format_are_one_line(ws: Path, tmp_path: Path, tasks: Path) -> None:
    result = bench(ws, tmp_path / "none.jsonl")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {tmp_path / 'none.jsonl'}: No such file or directory\n",
    )
    result = bench(ws, tasks, "-f", "pdf")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --format: must be 'text', 'json', 'markdown' or 'html' (got 'pdf')\n",
    )


HOSTILE = " <script>alert(1)</script> | **bold** [x](javascript:alert(2)) \x1b[2J\x1b]0;title\x07"


def test_markdown_html_and_text_escape_model_text(ws: Path, tasks: Path, tmp_path: Path) -> None:
    world = BenchWorld(extra=HOSTILE)
    out = tmp_path / "report.md"
    result = bench(ws, tasks, "-f", "markdown", "-o", str(out), world=world)
    assert result.exit_code == 0, result.output
    bench_id = result.stderr.splitlines()[0].split()[1].rstrip(":")
    markdown = out.read_text(encoding="utf-8")
    assert "| t2 | easy, math | 1 | 90.0 | 50.0 | 70.0 |" in markdown
    assert (
        "Alpha: alpha answer for t2 &lt;script&gt;alert(1)&lt;/script&gt; \\| \\*\\*bold\\*\\* "
        "\\[x\\](javascript:alert(2))" in markdown
    )
    assert "<script>" not in markdown and "\x1b" not in markdown and "\x07" not in markdown

    result = bench(ws, tasks, "--resume", bench_id, "-f", "html", world=BenchWorld())
    assert result.exit_code == 0, result.output
    page = result.stdout
    assert page.startswith("<!doctype html>")
    assert "alpha answer for t2 &lt;script&gt;alert(1)&lt;/script&gt; | **bold**" in page
    assert "<script" not in page and "\x1b" not in page and "\x07" not in page
    assert "Content-Security-Policy" in page and 'href="http' not in page and "src=" not in page

    result = bench(ws, tasks, "--resume", bench_id, world=BenchWorld())
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "<script>alert(1)</script>" in result.stdout  # shown as typed: rich reads no markup in it
    assert "| **bold**" in result.stdout
