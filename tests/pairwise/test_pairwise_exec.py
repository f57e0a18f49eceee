"""The final pairwise stage through `mixseek exec`, `runs show` and `runs export`, with scripted judges.

The scripted rounds end with gamma 99 (round 4), alpha 80 (round 3), beta 72 (round 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pairwise_script import ScriptedJudge, always_first, pairwise_workspace, prefers
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World
from mixseek.cli.app import app
from mixseek.llm import override_models


def run_exec(
    runner: CliRunner, ws: Path, judge: ScriptedJudge, *args: str
) -> tuple[int, dict[str, Any], str]:
    with override_models({**World().models(), "script:pairwise": judge.model()}):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json", *args])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}, result.stderr


def comparisons(ws: Path) -> list[tuple[object, ...]]:
    return rows(
        ws / "mixseek.db",
        "SELECT team_a, team_b, round_a, round_b, verdict_a_first, verdict_b_first, outcome "
        "FROM pairwise_comparisons ORDER BY sequence",
    )


def ranking(ws: Path) -> list[tuple[object, ...]]:
    return rows(
        ws / "mixseek.db",
        "SELECT rank, team_id, wins, matches, score_rank FROM pairwise_ranking ORDER BY rank",
    )


def test_position_swap_turns_a_first_position_judge_into_ties(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    judge = ScriptedJudge(always_first)
    code, summary, _ = run_exec(runner, ws, judge)
    assert code == 0
    # each pair shown in both orders; the judge always said "A", so no pair has a winner
    assert comparisons(ws) == [
        ("gamma", "alpha", 4, 3, "A", "A", 0.5),
        ("gamma", "beta", 4, 2, "A", "A", 0.5),
        ("alpha", "beta", 3, 2, "A", "A", 0.5),
    ]
    pairs = [("gamma", "alpha"), ("gamma", "beta"), ("alpha", "beta")]
    assert sorted(judge.shown) == sorted([*pairs, *((b, a) for a, b in pairs)])
    assert [(w, m) for _, _, w, m, _ in ranking(ws)] == [(1.0, 2)] * 3
    strengths = [s["strength"] for s in summary["pairwise"]["ranking"]]
    assert strengths == [0.0, 0.0, 0.0]
    assert summary["pairwise"]["status"] == "completed"


def test_bradley_terry_recovers_the_judges_order(tmp_path: Path, runner: CliRunner) -> None:
    # the judge's order is the reverse of the score ranking (gamma, alpha, beta)
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    code, summary, _ = run_exec(runner, ws, ScriptedJudge(prefers(["beta", "alpha", "gamma"])))
    assert code == 0
    assert ranking(ws) == [(1, "beta", 2.0, 2, 3), (2, "alpha", 1.0, 2, 2), (3, "gamma", 0.0, 2, 1)]
    standings = summary["pairwise"]["ranking"]
    assert [s["team_id"] for s in standings] == ["beta", "alpha", "gamma"]
    assert standings[0]["strength"] > standings[1]["strength"] > standings[2]["strength"]
    for s in standings:
        assert s["ci_low"] <= s["strength"] <= s["ci_high"]
    # the score ranking is unchanged beside it
    assert [e["team_id"] for e in summary["leaderboard"]] == ["gamma", "alpha", "beta"]
    assert summary["best"]["team_id"] == "gamma"


def test_stored_rows_and_runs_show(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    code, summary, _ = run_exec(runner, ws, ScriptedJudge(prefers(["alpha", "gamma", "beta"])))
    assert code == 0
    execution_id = summary["execution_id"]
    assert comparisons(ws) == [
        ("gamma", "alpha", 4, 3, "B", "A", 0.0),
        ("gamma", "beta", 4, 2, "A", "B", 1.0),
        ("alpha", "beta", 3, 2, "A", "B", 1.0),
    ]
    reasons = rows(
        ws / "mixseek.db",
        "SELECT reasoning_a_first, reasoning_b_first FROM pairwise_comparisons ORDER BY sequence",
    )
    assert reasons[1] == ("gamma/beta", "beta/gamma")
    # the judge's two calls per comparison are counted under their own site
    assert rows(
        ws / "mixseek.db",
        "SELECT sum(requests), sum(input_tokens) FROM model_calls WHERE site = 'pairwise judge'",
    ) == [(6, 420)]

    shown = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    start = lines.index("pairwise ranking: round_robin, judge script:pairwise: 3 of 3 comparisons, completed")
    assert lines[start - 6 : start] == [
        "leaderboard",
        "  #  team           best score  rounds",
        "  1  Gamma (gamma)  99.00       4",
        "  2  Alpha (alpha)  80.00       3",
        "  3  Beta (beta)    72.00       2",
        "",
    ]
    table = lines[start + 1 : start + 5]
    assert [line.split()[:3] for line in table] == [
        ["#", "team", "strength"],
        ["1", "Alpha", "(alpha)"],
        ["2", "Gamma", "(gamma)"],
        ["3", "Beta", "(beta)"],
    ]
    assert [line.split()[-3:] for line in table[1:]] == [["2", "2", "2"], ["1", "2", "1"], ["0", "2", "3"]]
    assert lines[start + 5 : start + 9] == [
        "  team a  team b  a shown first  b shown first  result",
        "  gamma   alpha   alpha          alpha          alpha wins",
        "  gamma   beta    gamma          gamma          gamma wins",
        "  alpha   beta    alpha          alpha          alpha wins",
    ]

    as_json = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"])
    document = json.loads(as_json.stdout)["pairwise"]
    assert document == summary["pairwise"]
    assert [s["team_id"] for s in document["ranking"]] == ["alpha", "gamma", "beta"]
    assert [c["outcome"] for c in document["comparisons"]] == [0.0, 1.0, 1.0]
    assert document["planned"] == 3 and document["schedule"] == "round_robin"

    markdown = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "markdown"])
    assert "## Pairwise ranking\n\nround_robin, judge script:pairwise: 3 of 3 comparisons, completed" in (
        markdown.stdout
    )
    assert "| gamma | alpha | alpha | alpha | alpha wins | gamma/alpha | alpha/gamma |" in markdown.stdout
    html = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "html"])
    assert '<section id="pairwise">' in html.stdout
    assert "<td>Alpha (alpha)</td>" in html.stdout


def test_exec_shows_the_stage_in_its_event_log(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "top_k"\ntop_k = 2')
    code, summary, _ = run_exec(runner, ws, ScriptedJudge(prefers(["alpha", "gamma", "beta"])))
    assert code == 0
    log = ws / "logs" / f"{summary['execution_id']}.jsonl"
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    stage = [e for e in events if e["kind"].startswith("pairwise_")]
    assert [(e["kind"], e.get("planned"), e.get("done")) for e in stage] == [
        ("pairwise_started", 1, 0),
        ("pairwise_compared", 1, 1),
        ("pairwise_finished", None, None),
    ]
    assert stage[1]["winner"] == "alpha" and stage[2]["leader"] == "alpha"
    kinds = [e["kind"] for e in events]
    assert kinds.index("pairwise_finished") < kinds.index("execution_finished")


def test_the_budget_stops_the_stage_and_the_summary_says_so(tmp_path: Path, runner: CliRunner) -> None:
    # the rounds spend 58 requests; one comparison at a time, so the third request is refused
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    judge = ScriptedJudge(prefers(["alpha", "gamma", "beta"]))
    env = {"MIXSEEK_ORCHESTRATOR__MAX_REQUESTS": "61", "MIXSEEK_ORCHESTRATOR__MAX_CONCURRENT_TEAMS": "1"}
    with override_models({**World().models(), "script:pairwise": judge.model()}):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"], env=env)
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["stop_reason"] == "finished"
    pairwise = summary["pairwise"]
    assert pairwise["status"] == "budget"
    assert pairwise["detail"] == "budget max_requests = 61 reached (61 spent)"
    assert len(judge.shown) == 3
    assert comparisons(ws) == [("gamma", "alpha", 4, 3, "B", "A", 0.0)]
    assert ranking(ws) == [(1, "alpha", 1.0, 1, 2), (2, "gamma", 0.0, 1, 1)]
    # every request is paid for in the store, the refused comparison's first one too
    assert rows(ws / "mixseek.db", "SELECT sum(requests) FROM model_calls") == [(61,)]
    assert summary["usage"]["requests"] == 61


def test_exec_text_output_shows_both_rankings(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "swiss"\nmax_comparisons = 2')
    judge = ScriptedJudge(prefers(["beta", "alpha", "gamma"]))
    with override_models({**World().models(), "script:pairwise": judge.model()}):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    # Swiss round 1: the two best by score (gamma, alpha; beta sits out); round 2, standing alpha
    # (1 point), gamma, beta: the leader meets the first team below it that it has not met
    assert comparisons(ws) == [
        ("gamma", "alpha", 4, 3, "B", "A", 0.0),
        ("alpha", "beta", 3, 2, "B", "A", 0.0),
    ]
    assert len(judge.shown) == 4
    out = result.stdout
    assert "pairwise ranking: swiss, judge script:pairwise: 2 of 2 comparisons, completed" in out
    assert out.index("leaderboard") < out.index("pairwise ranking") < out.index("teams")
