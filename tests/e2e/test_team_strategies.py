"""A selective, a broadcast and a workflow team compete in one `mixseek exec`: the store, the prompt
history, the ranking and the usage treat the three alike, and a kill in the middle of a workflow
round is resumed by redoing that team round alone."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
from typer.testing import CliRunner

from mixseek.agents.leader.models import MemberSubmission
from mixseek.agents.workflow.document import DOCUMENT_FORMAT, RoundInput, StepResults, input_document
from mixseek.cli.app import app
from mixseek.config.teams import load_team
from mixseek.llm import override_models

from .db import rows
from .strategies import StrategyWorld, function_calls, write_strategies_workspace
from .test_exec import ranking_lines

RUNNER = Path(__file__).parent / "run_strategies.py"
TEAMS = ("alpha", "beta", "gamma")
BOARD = "SELECT team_id, round_number, evaluation_score, is_final FROM leader_board ORDER BY 1, 2"
EXPECTED_BOARD = [
    ("alpha", 1, 60.0, False),
    ("alpha", 2, 75.0, True),
    ("beta", 1, 70.0, False),
    ("beta", 2, 72.0, True),
    ("gamma", 1, 50.0, False),
    ("gamma", 2, 75.0, True),
]


def table(db: Path, name: str) -> list[dict[str, Any]]:
    """Every row of a table as a dict of column → value."""
    conn = duckdb.connect(str(db), read_only=True)
    try:
        cursor = conn.execute(f"SELECT * FROM {name}")
        columns = [d[0] for d in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    finally:
        conn.close()


def null_columns(row: dict[str, Any]) -> list[str]:
    return [column for column, value in row.items() if value is None]


def by_team(rows_: list[dict[str, Any]], round_number: int) -> dict[str, dict[str, Any]]:
    found = {r["team_id"]: r for r in rows_ if r["round_number"] == round_number}
    assert sorted(found) == list(TEAMS)
    return found


def same_for_every_team(values: dict[Any, object]) -> None:
    """Every team (or row) has the same value; the assertion shows them all when not."""
    distinct = {json.dumps(v, sort_keys=True) for v in values.values()}
    assert len(distinct) == 1, values


def submission_keys(record: str) -> list[tuple[list[str], list[str]]]:
    """The keys of the record's submissions and of their usage, each distinct set once."""
    found = {(tuple(sorted(s)), tuple(sorted(s["usage"]))) for s in json.loads(record)["submissions"]}
    return [(list(keys), list(usage)) for keys, usage in sorted(found)]


def test_three_kinds_of_team_compete_in_one_execution(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_strategies_workspace(tmp_path / "ws")
    world = StrategyWorld()
    with override_models(world.models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    db = ws / "mixseek.db"

    assert rows(db, BOARD) == EXPECTED_BOARD
    assert summary["leaderboard"] == [
        {"team_id": "alpha", "team_name": "Alpha", "max_score": 75.0, "total_rounds": 2},
        {"team_id": "gamma", "team_name": "Gamma", "max_score": 75.0, "total_rounds": 2},
        {"team_id": "beta", "team_name": "Beta", "max_score": 72.0, "total_rounds": 2},
    ]
    assert rows(
        db, "SELECT team_id, submission_content FROM leader_board WHERE round_number = 2 ORDER BY 1"
    ) == [
        ("alpha", "alpha answer v2 (member did round 2)"),
        ("beta", "beta answer v2"),
        ("gamma", "gamma answer v2 (draft A from facts r2 + draft B from facts r2)"),
    ]
    assert function_calls(ws).count("editor r1") == 1 and function_calls(ws).count("draft_b r2") == 1

    # -- the rows are the same shape for all three kinds ---------------------------------------
    history, board, status = (table(db, t) for t in ("round_history", "leader_board", "round_status"))
    for round_number in (1, 2):
        for rows_ in (history, board, status):
            same_for_every_team({t: null_columns(r) for t, r in by_team(rows_, round_number).items()})
        records = {t: r["member_submissions_record"] for t, r in by_team(history, round_number).items()}
        same_for_every_team({t: sorted(json.loads(r)) for t, r in records.items()})
        same_for_every_team({t: submission_keys(r) for t, r in records.items()})
        infos = {t: json.loads(r["usage_info"]) for t, r in by_team(board, round_number).items()}
        same_for_every_team({t: sorted(i) for t, i in infos.items()})
        same_for_every_team(
            {t: {k: sorted(v) for k, v in i.items() if k != "by_site"} for t, i in infos.items()}
        )
        details = {t: json.loads(r["score_details"]) for t, r in by_team(board, round_number).items()}
        same_for_every_team({t: sorted(d) for t, d in details.items()})
        for row in by_team(history, round_number).values():
            assert json.loads(row["message_history"]), row["team_id"]  # every kind keeps its messages
    assert {r["status"] for r in status} == {"completed"}
    assert {r["exit_reason"] for r in status if r["round_number"] == 2} == {"max_rounds"}
    calls = table(db, "model_calls")
    same_for_every_team({r["id"]: null_columns(r) for r in calls})
    assert {(r["team_id"], r["round_number"]) for r in calls} == {(t, n) for t in TEAMS for n in (1, 2)}
    # what differs is what each kind is made of: its members' names, types and steps
    gamma_record = json.loads(by_team(history, 1)["gamma"]["member_submissions_record"])
    assert [(s["step_id"], s["agent_name"], s["agent_type"]) for s in gamma_record["submissions"]] == [
        ("research", "researcher", "plain"),
        ("draft", "draft_a", "plain"),
        ("draft", "draft_b", "function"),
        ("edit", "editor", "function"),
    ]
    beta_record = json.loads(by_team(history, 1)["beta"]["member_submissions_record"])
    assert [(s["step_id"], s["agent_name"], s["content"]) for s in beta_record["submissions"]] == [
        (None, "scout", "note for round 1"),
        (None, "critic", "note for round 1"),
    ]

    # -- round 2's prompt history and ranking treat the workflow team like the others ----------
    boards = {team: ranking_lines(world.team_prompts[(team, 2)]) for team in TEAMS}
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
    gamma_prompt = world.team_prompts[("gamma", 2)]
    assert "## ラウンド 1\nスコア: 50.00/100\n" in gamma_prompt
    assert "あなたの提出内容: gamma answer v1 (draft A from facts r1 + draft B from facts r1)" in gamma_prompt
    assert "**#3 Gamma (あなたのチーム) - スコア: 50.00/100 (ラウンド数: 1)**" in gamma_prompt
    assert "現在、3チーム中3位です。" in gamma_prompt
    research_2 = next(d for d in world.documents if d["round_number"] == 2 and d["step"]["id"] == "research")
    assert research_2["format"] == DOCUMENT_FORMAT
    assert research_2["user_prompt"] == "最良の回答を"
    assert research_2["previous_steps"] == []
    assert any("あなたの提出内容: gamma answer v1" in p for p in world.world.judgment_prompts)

    # -- usage sums: per team round, per site and for the execution ------------------------------
    def summed(selected: list[dict[str, Any]]) -> dict[str, int]:
        return {k: sum(int(r[k]) for r in selected) for k in ("requests", "input_tokens", "output_tokens")}

    def triple(usage: dict[str, Any]) -> dict[str, int]:
        return {k: int(usage[k]) for k in ("requests", "input_tokens", "output_tokens")}

    submissions = {
        (h["team_id"], h["round_number"]): json.loads(h["member_submissions_record"])["submissions"]
        for h in history
    }
    for row in board:
        key = (row["team_id"], row["round_number"])
        info = json.loads(row["usage_info"])
        own = [c for c in calls if (c["team_id"], c["round_number"]) == key]
        team_calls = [c for c in own if not c["site"].startswith(("evaluator ", "judgment"))]
        assert triple(info["team"]) == summed(team_calls), key
        assert triple(info["evaluation"]) == summed([c for c in own if c["site"].startswith("evaluator ")])
        assert triple(info["members"]) == summed([s["usage"] for s in submissions[key]]), key
        assert {k: info["leader"][k] + info["members"][k] for k in triple(info["team"])} == triple(
            info["team"]
        )
    assert summary["usage"] == summed(calls)
    assert summary["usage"] == {"requests": 37, "input_tokens": 1890, "output_tokens": 312}
    assert summary["usage_by_site"]["executor 'researcher' of team 'gamma'"] == {
        "requests": 2,
        "input_tokens": 40,
        "output_tokens": 8,
    }
    gamma_info = json.loads(by_team(board, 2)["gamma"]["usage_info"])
    assert triple(gamma_info["leader"]) == {"requests": 0, "input_tokens": 0, "output_tokens": 0}
    assert triple(gamma_info["team"]) == {"requests": 2, "input_tokens": 45, "output_tokens": 10}


# -- kill in the middle of a workflow round, then resume ------------------------------------------


def scripted_cli(ws: Path, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`mixseek ARGS` in its own process, its output in files `NAME.out` and `NAME.err` next to the
    workspace (a pipe nobody reads could fill and stall it)."""
    with (ws.parent / f"{name}.out").open("w") as out, (ws.parent / f"{name}.err").open("w") as err:
        return subprocess.Popen(
            [sys.executable, str(RUNNER), *args],
            stdout=out,
            stderr=err,
            text=True,
            env={**os.environ, **(env or {})},
        )


def finished_rounds(ws: Path) -> set[tuple[str, int]]:
    """The team rounds the execution's log says are finished (each is stored before it says so)."""
    done = set()
    for log in (ws / "logs").glob("*.jsonl"):
        *lines, _unfinished = log.read_text(encoding="utf-8").split("\n")  # a line still being written
        for line in lines:
            event = json.loads(line)
            if event["kind"] == "team_round_finished":
                done.add((event["team_id"], event["round_number"]))
    return done


def wait_until_hanging(ws: Path, proc: subprocess.Popen[str]) -> None:
    """Until gamma's draft_b hangs in round 2 and alpha and beta have stored round 2: events the
    process reports, whatever the machine's speed (the deadline only stops a broken run)."""
    deadline = time.monotonic() + 120
    while not (
        (ws / "configs" / "agents" / "hanging").exists()
        and {("alpha", 2), ("beta", 2)} <= finished_rounds(ws)
    ):
        assert proc.poll() is None, (ws.parent / "killed.err").read_text()
        assert time.monotonic() < deadline, "the run never reached draft_b of round 2"
        time.sleep(0.05)


def stored(db: Path) -> dict[str, dict[tuple[object, ...], dict[str, Any]]]:
    """The rows of one execution, keyed by what identifies them."""
    return {
        "leader_board": {(r["team_id"], r["round_number"]): r for r in table(db, "leader_board")},
        "round_history": {(r["team_id"], r["round_number"]): r for r in table(db, "round_history")},
        "round_status": {(r["team_id"], r["round_number"]): r for r in table(db, "round_status")},
        "model_calls": {(r["id"],): r for r in table(db, "model_calls")},
    }


def test_kill_in_a_workflow_round_then_resume_redoes_that_team_round_only(tmp_path: Path) -> None:
    ws = write_strategies_workspace(tmp_path / "ws")
    args = ("-w", str(ws), "-f", "json")
    killed = scripted_cli(ws, "killed", "exec", "最良の回答を", *args, env={"STRATEGIES_HANG_ROUND": "2"})
    try:
        wait_until_hanging(ws, killed)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    db = ws / "mixseek.db"

    ((execution_id, execution_status),) = rows(db, "SELECT execution_id, status FROM executions")
    assert execution_status == "running"
    before = stored(db)
    assert sorted(before["leader_board"]) == [
        ("alpha", 1),
        ("alpha", 2),
        ("beta", 1),
        ("beta", 2),
        ("gamma", 1),
    ]
    assert before["round_status"][("gamma", 2)]["status"] == "running"
    calls_before = function_calls(ws)
    assert sorted(calls_before) == ["draft_b r1", "draft_b r2", "editor r1"]

    resumed = scripted_cli(ws, "resumed", "exec", "--resume", str(execution_id), *args)
    resumed.wait(timeout=120)
    assert resumed.returncode == 0, (tmp_path / "resumed.err").read_text()
    summary = json.loads((tmp_path / "resumed.out").read_text())
    assert (summary["execution_id"], summary["status"]) == (execution_id, "completed")
    assert rows(db, BOARD) == EXPECTED_BOARD
    assert rows(db, "SELECT status FROM executions") == [("completed",)]

    after = stored(db)
    # every row stored before the kill is kept as it was (ids and created_at included)...
    # (but a team's last round on the board becomes is_final once the team is done)
    for name in ("leader_board", "round_history", "model_calls"):
        for key, row in before[name].items():
            assert after[name][key] | {"is_final": None} == row | {"is_final": None}, (name, key)
    for key, row in before["round_status"].items():
        if key != ("gamma", 2):
            kept = ("status", "started_at", "ended_at", "judgment_reasoning", "judgment_confidence")
            assert {k: after["round_status"][key][k] for k in kept} == {k: row[k] for k in kept}, key
    # ...and what the resume added is gamma's round 2 alone
    assert sorted(set(after["leader_board"]) - set(before["leader_board"])) == [("gamma", 2)]
    assert sorted(set(after["round_history"]) - set(before["round_history"])) == [("gamma", 2)]
    new_calls = [after["model_calls"][k] for k in set(after["model_calls"]) - set(before["model_calls"])]
    assert {(c["team_id"], c["round_number"]) for c in new_calls} == {("gamma", 2)}
    assert sorted(c["site"] for c in new_calls) == [
        "evaluator metric 'clarity_coherence'",
        "evaluator metric 'coverage'",
        "evaluator metric 'relevance'",
        "executor 'draft_a' of team 'gamma'",
        "executor 'researcher' of team 'gamma'",
    ]
    assert after["round_status"][("gamma", 2)]["status"] == "completed"
    # gamma's round 1 was not run again: its functions ran once in round 1, twice in round 2
    assert function_calls(ws)[: len(calls_before)] == calls_before
    assert function_calls(ws)[len(calls_before) :] == ["draft_b r2", "editor r2"]
    record = json.loads(after["round_history"][("gamma", 2)]["member_submissions_record"])
    assert [(s["step_id"], s["agent_name"], s["status"]) for s in record["submissions"]] == [
        ("research", "researcher", "SUCCESS"),
        ("draft", "draft_a", "SUCCESS"),
        ("draft", "draft_b", "SUCCESS"),
        ("edit", "editor", "SUCCESS"),
    ]


# -- the README's "Team strategies" section and its worked example ---------------------------------

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "team_strategies.py"


def readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Team strategies\n")
    return text[start : text.index("\n## ", start + 1)]


def test_the_worked_example_runs_offline_and_prints_the_leaderboard(tmp_path: Path) -> None:
    """`python examples/team_strategies.py` in an empty directory, with no key, no mixseek
    variable and every connection sent to a closed port: the README's output, exit code 0."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MIXSEEK_", "PYTEST_", "PYTHON")) and not k.endswith(("_API_KEY", "_TOKEN"))
    }
    dead = "http://127.0.0.1:9"
    (tmp_path / "tmp").mkdir()
    env.update(
        HOME=str(tmp_path), TMPDIR=str(tmp_path / "tmp"), HTTP_PROXY=dead, HTTPS_PROXY=dead, NO_PROXY=""
    )
    done = subprocess.run(
        [sys.executable, "-I", str(EXAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "winner: Workflow (round 2): Insulate the loft and seal the draughts. Switch off standby power.",
        "1. Workflow [workflow]: best 95.0",
        "2. Broadcast [broadcast]: best 70.0",
        "3. Selective [selective]: best 45.0",
    ]
    shown = readme_section().split("$ python examples/team_strategies.py\n", 1)[1].split("\n```", 1)[0]
    assert shown.splitlines() == done.stdout.splitlines()
    assert list((tmp_path / "tmp").iterdir()) == []  # its temporary store is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]  # and it wrote nothing else


def readme_files() -> dict[str, str]:
    """The README's workspace files of the worked example, by path (`configs/agents/...`)."""
    blocks = re.findall(
        r"^```(?:toml|python)\n# (configs/agents/[\w.]+)[^\n]*\n(.*?)^```$", readme_section(), re.S | re.M
    )
    return dict(blocks)


def test_the_readme_team_files_are_a_valid_workspace_of_the_same_three_teams(
    tmp_path: Path, runner: CliRunner
) -> None:
    files = readme_files()
    assert sorted(files) == [
        "configs/agents/broadcast.toml",
        "configs/agents/selective.toml",
        "configs/agents/steps.py",
        "configs/agents/workflow.toml",
    ]
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws)]).exit_code == 0
    for name, text in files.items():
        (ws / name).write_text(text, encoding="utf-8")
    (ws / "configs" / "orchestrator.toml").write_text(
        "[orchestrator]\nmax_rounds = 2\n"
        + "".join(
            f'[[orchestrator.teams]]\nconfig = "agents/{t}.toml"\n'
            for t in ("selective", "broadcast", "workflow")
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["config", "validate", "-w", str(ws)])
    assert result.exit_code == 0, result.output

    teams = {
        t: load_team(ws / "configs" / "agents" / f"{t}.toml").config
        for t in ("selective", "broadcast", "workflow")
    }
    assert {t: c.kind for t, c in teams.items()} == {
        "selective": "selective",
        "broadcast": "broadcast",
        "workflow": "workflow",
    }
    assert [m.agent_name for m in teams["broadcast"].members] == ["builder", "plumber"]
    workflow = teams["workflow"].workflow
    assert workflow is not None
    assert [(s.id, s.continue_on_failure, [e.name for e in s.executors]) for s in workflow.steps] == [
        ("research", False, ["researcher"]),
        ("draft", True, ["heat", "power"]),
        ("edit", False, ["editor"]),
    ]
    # the README's functions are the example's, word for word
    example = EXAMPLE.read_text(encoding="utf-8")
    for function in files["configs/agents/steps.py"].split("\n\n\n")[1:]:
        assert function.strip() in example


def test_the_readme_input_document_has_the_documented_keys() -> None:
    (shown,) = re.findall(r"^```json\n(.*?)^```$", readme_section(), re.S | re.M)
    document = json.loads(shown)
    real = input_document(
        RoundInput(team_id="t", team_name="T", round_number=1, user_prompt="u", prompt="p"),
        step_id="draft",
        step_index=1,
        executor="power",
        previous=[
            StepResults(
                "research",
                [MemberSubmission(agent_name="r", agent_type="plain", content="c", status="SUCCESS")],
            )
        ],
    )
    assert sorted(document) == sorted(real)
    assert document["format"] == DOCUMENT_FORMAT
    assert sorted(document["step"]) == sorted(real["step"])
    assert sorted(document["previous_steps"][0]) == sorted(real["previous_steps"][0])
    assert sorted(document["previous_steps"][0]["results"][0]) == sorted(
        real["previous_steps"][0]["results"][0]
    )


def test_the_readme_workflow_format_block_is_a_valid_team_file(tmp_path: Path) -> None:
    block = re.findall(r"^```toml\n(\[workflow\]\n.*?)^```$", readme_section(), re.S | re.M)[0]
    (tmp_path / "steps.py").write_text("def check(document):\n    return 'ok'\n", encoding="utf-8")
    team_file = tmp_path / "team.toml"
    team_file.write_text(f'[team]\nteam_id = "t"\nteam_name = "T"\n\n{block}', encoding="utf-8")
    workflow = load_team(team_file).config.workflow
    assert workflow is not None
    assert workflow.output_executor == "checker"
    assert [e.kind for e in workflow.steps[0].executors] == ["agent", "function"]
