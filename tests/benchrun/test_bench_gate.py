"""`mixseek bench` as a gate: more repeats for a finished bench, and a comparison with an earlier one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from benchrun.test_bench_cli import RUN_BENCH, bench
from benchrun.world import SIX_TASKS_JSONL, TASKS_JSONL, BenchWorld, write_bench_workspace
from e2e.db import rows


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return write_bench_workspace(tmp_path / "ws")


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text(TASKS_JSONL, encoding="utf-8")
    return path


def test_repeat_5_after_3_runs_only_the_2_more_per_task(ws: Path, tasks: Path) -> None:
    first = bench(ws, tasks, "--repeat", "3", "-f", "json")
    assert first.exit_code == 0, first.output
    bench_id = json.loads(first.stdout)["bench_id"]
    db = ws / "mixseek.db"
    before = rows(db, "SELECT task_id, repeat_number, execution_id FROM bench_runs ORDER BY 1, 2")

    world = BenchWorld()
    result = bench(ws, tasks, "--resume", bench_id, "--repeat", "5", "-f", "json", world=world)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"bench {bench_id}: 3 task(s) × 5 repeat(s) = 15 run(s)"
    # two more repeats of three tasks, three teams each; the first nine runs are left as they were
    assert sorted(world.leader_calls) == sorted(
        (team, task) for task in ("t1", "t2", "t3") for team in ("alpha", "beta", "gamma") for _ in range(2)
    )
    after = rows(db, "SELECT task_id, repeat_number, execution_id FROM bench_runs ORDER BY 1, 2")
    assert len(after) == 15 and set(before) <= set(after)
    assert sorted({r for _, r, _ in after}) == [1, 2, 3, 4, 5]
    assert rows(db, "SELECT count(*) FROM executions") == [(15,)]
    assert rows(db, "SELECT repeats FROM benches") == [(5,)]
    report = json.loads(result.stdout)
    assert report["repeats"] == 5
    assert report["runs"] == {"planned": 15, "scored": 15, "unscored": 0, "missing": 0}

    smaller = bench(ws, tasks, "--resume", bench_id, "--repeat", "4", world=(idle := BenchWorld()))
    assert (smaller.exit_code, smaller.stderr) == (
        2,
        f"error: --repeat: bench {bench_id} already runs 5 repeat(s); give 5 or more, or leave --repeat "
        "out\n",
    )
    same = bench(ws, tasks, "--resume", bench_id, "--repeat", "5", world=idle)
    assert same.exit_code == 0, same.output
    assert idle.leader_calls == []


def test_paired_permutation_test_sits_beside_the_sign_test_in_every_format(
    ws: Path, tasks: Path, tmp_path: Path
) -> None:
    result = bench(ws, tasks, "-f", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    bench_id = report["bench_id"]
    paired = {(p["team"], p["opponent"]): p for p in report["paired_tests"]}
    # per-task differences: alpha-beta 20, 20, 5 (2 of 8 sign patterns reach 45); alpha-gamma 0, 40, 15
    # (4 of 8: the 0 doubles +40+15 and its mirror); gamma-beta 20, -20, -10 (every pattern of
    # ±20±20±10 reaches |10|)
    assert paired[("alpha", "beta")] == {
        "team": "alpha", "opponent": "beta", "tasks": 3, "mean_difference": 15.0, "p_value": 0.25,
    }  # fmt: skip
    assert paired[("alpha", "gamma")]["mean_difference"] == pytest.approx(55 / 3)
    assert paired[("alpha", "gamma")]["p_value"] == 0.5
    assert paired[("gamma", "beta")]["mean_difference"] == pytest.approx(-10 / 3)
    assert paired[("gamma", "beta")]["p_value"] == 1.0

    text = bench(ws, tasks, "--resume", bench_id).stdout
    assert "paired p" in text and "+15" in text
    markdown = bench(ws, tasks, "--resume", bench_id, "-f", "markdown").stdout
    assert "| Alpha | Beta | 3-0-0 | 3-0-0 | 0.25 | +15 | 0.25 |" in markdown
    page = bench(ws, tasks, "--resume", bench_id, "-f", "html").stdout
    assert '<th class="num">Paired p</th>' in page and ">+18.3<" in page


def run_bench(ws: Path, tasks: Path, *args: str, shift: str = "") -> subprocess.CompletedProcess[str]:
    """`mixseek bench` in its own process, scripted by `world.py` (BENCH_SHIFT plants a regression)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    return subprocess.run(
        [sys.executable, str(RUN_BENCH), "bench", str(tasks), "-w", str(ws), *args],
        env={**env, "BENCH_SHIFT": shift},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def six(tmp_path: Path) -> Path:
    path = tmp_path / "six.jsonl"
    path.write_text(SIX_TASKS_JSONL, encoding="utf-8")
    return path


def test_a_planted_regression_fails_the_gate_and_an_unchanged_set_up_passes(ws: Path, six: Path) -> None:
    first = run_bench(ws, six, "-f", "json")
    assert first.returncode == 0, first.stderr
    base = json.loads(first.stdout)["bench_id"]

    # alpha scores 12 lower on each of 6 tasks: of the 2^6 sign patterns only all-minus and all-plus
    # reach |72|, p = 2/64; beta and gamma did not change (p = 1)
    worse = run_bench(
        ws, six, "-f", "json", "--baseline", base, "--fail-if-worse", "alpha", shift="alpha=-12"
    )
    assert worse.returncode == 1, worse.stderr
    assert worse.stderr.splitlines()[-1] == (
        f"worse: team alpha scored 12 lower than bench {base} (95% CI -12 to -12, p = 0.0312)"
    )
    report = json.loads(worse.stdout)
    assert report["baseline"]["bench_id"] == base
    against = {b["team_id"]: b for b in report["baseline"]["teams"]}
    assert against["alpha"] == {
        "team_id": "alpha", "tasks": 6, "difference": {"mean": -12.0, "low": -12.0, "high": -12.0},
        "p_value": 2 / 64,
    }  # fmt: skip
    assert against["beta"]["difference"]["mean"] == 0.0 and against["beta"]["p_value"] == 1.0

    gated_on_beta = run_bench(ws, six, "--baseline", base, "--fail-if-worse", "beta", shift="alpha=-12")
    assert gated_on_beta.returncode == 0, gated_on_beta.stderr
    assert "against bench" in gated_on_beta.stdout and "worse:" not in gated_on_beta.stderr

    unchanged = run_bench(ws, six, "-f", "markdown", "--baseline", base, "--fail-if-worse", "alpha")
    assert unchanged.returncode == 0, unchanged.stderr
    assert "worse:" not in unchanged.stderr
    assert f"## Against bench {base}" in unchanged.stdout
    assert "| Alpha | 6 | +0 [+0, +0] | 1 |" in unchanged.stdout

    better = run_bench(ws, six, "-f", "html", "--baseline", base, "--fail-if-worse", "alpha", shift="alpha=5")
    assert better.returncode == 0, better.stderr
    assert 'id="baseline"' in better.stdout and ">+5 [+5, +5]<" in better.stdout


def test_baseline_of_other_tasks_or_unknown_bench_or_team_is_one_line_exit_2(
    ws: Path, tasks: Path, six: Path
) -> None:
    first = bench(ws, tasks, "-f", "json")
    assert first.exit_code == 0, first.output
    base = json.loads(first.stdout)["bench_id"]
    idle = BenchWorld()
    cases = [
        (
            [str(six), "--baseline", base],
            f"error: --baseline: bench {base} ran other tasks ({tasks}, sha256 ",
        ),
        (
            [str(tasks), "--baseline", "bench-nope"],
            f"error: --baseline: no bench 'bench-nope' in {ws / 'mixseek.db'}",
        ),
        (
            [str(tasks), "--fail-if-worse", "alpha"],
            "error: --fail-if-worse: needs --baseline BENCH_ID to compare with",
        ),
        (
            [str(tasks), "--baseline", base, "--fail-if-worse", "delta"],
            "error: --fail-if-worse: no team 'delta' in the configuration (teams: alpha, beta, gamma)",
        ),
    ]
    for args, line in cases:
        result = bench(ws, Path(args[0]), *args[1:], world=idle)
        assert result.exit_code == 2, result.output
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(line), result.stderr
    assert idle.leader_calls == []
    # a team added since the baseline ran: nothing to compare it with, refused up front
    orchestrator = ws / "configs" / "orchestrator.toml"
    configured = orchestrator.read_text(encoding="utf-8")
    gamma = '[[orchestrator.teams]]\nconfig = "agents/gamma.toml"\n'
    orchestrator.write_text(configured.replace(gamma, ""), encoding="utf-8")
    without_gamma = bench(ws, tasks, "-f", "json")
    assert without_gamma.exit_code == 0, without_gamma.output
    orchestrator.write_text(configured, encoding="utf-8")
    older = json.loads(without_gamma.stdout)["bench_id"]
    result = bench(ws, tasks, "--baseline", older, "--fail-if-worse", "gamma", world=idle)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: --fail-if-worse: team 'gamma' has no scored run in bench {older}\n",
    )
    assert idle.leader_calls == []
    proc = run_bench(ws, six, "--baseline", base, "--fail-if-worse", "alpha")
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: --baseline: bench {base} ran other tasks")


def test_cost_latency_and_frontier_in_json_markdown_and_html(ws: Path, tasks: Path) -> None:
    first = run_bench(ws, tasks, "-f", "json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    bench_id = report["bench_id"]
    # scripted models have no price: cost unknown, no frontier; the rounds' times are measured
    for team in report["teams"]:
        assert team["cost"] == {"total": None, "per_task": None} and team["on_frontier"] is False
        assert 0 <= team["latency_seconds"]["p50"] <= team["latency_seconds"]["p95"]
    assert report["frontier"] == []

    # known prices and round times, written into the store: each run two calls a team (leader, metric)
    conn = duckdb.connect(str(ws / "mixseek.db"))
    conn.execute(
        "UPDATE model_calls SET cost = "
        "CASE team_id WHEN 'alpha' THEN 0.03 WHEN 'beta' THEN 0.01 ELSE 0.02 END"
    )
    conn.execute(
        "UPDATE round_status r SET ended_at = started_at + to_seconds((SELECT CASE b.task_id "
        "WHEN 't1' THEN 1 WHEN 't2' THEN 2 ELSE 4 END FROM bench_runs b "
        "WHERE b.execution_id = r.execution_id))"
    )
    conn.close()
    again = run_bench(ws, tasks, "--resume", bench_id, "-f", "json")
    assert again.returncode == 0, again.stderr
    teams = {t["team_id"]: t for t in json.loads(again.stdout)["teams"]}
    assert teams["alpha"]["cost"] == {"total": pytest.approx(0.18), "per_task": pytest.approx(0.06)}
    assert teams["beta"]["cost"] == {"total": pytest.approx(0.06), "per_task": pytest.approx(0.02)}
    # runs of 1, 2 and 4 s: the median 2, the 95th percentile 2 + 0.9 × (4 - 2)
    assert teams["gamma"]["latency_seconds"] == {"p50": pytest.approx(2.0), "p95": pytest.approx(3.8)}
    # alpha scores best (81.7), beta costs least (0.02); gamma (63.3 at 0.04) is beaten by beta on both
    assert json.loads(again.stdout)["frontier"] == ["alpha", "beta"]

    markdown = run_bench(ws, tasks, "--resume", bench_id, "-f", "markdown").stdout
    assert "## Cost and latency" in markdown
    assert "| Alpha | 0.1800 | 0.0600 | 2.00 | 3.80 | yes |" in markdown
    assert "| Gamma | 0.1200 | 0.0400 | 2.00 | 3.80 |  |" in markdown
    page = run_bench(ws, tasks, "--resume", bench_id, "-f", "html").stdout
    assert 'class="frontier-chart"' in page and page.count("<circle ") == 3 and "<polyline points=" in page
    text = run_bench(ws, tasks, "--resume", bench_id).stdout
    assert "cost and latency" in text and "0.0600" in text
