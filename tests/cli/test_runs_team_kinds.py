"""`mixseek runs show|export` of an execution in which a broadcast team, a selective team and a
workflow team competed: each team's kind, and a workflow round's executors by step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

BROADCAST_ALPHA = """
[team]
team_id = "alpha"
team_name = "Alpha"
member_dispatch = "broadcast"

[team.leader]
model = "script:leader-alpha"

[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "script:member"
"""

WORKFLOW_GAMMA = """
[team]
team_id = "gamma"
team_name = "Gamma"

[[workflow.steps]]
id = "research"
continue_on_failure = true
[[workflow.steps.executors]]
name = "scout"
model = "script:member"
[[workflow.steps.executors]]
name = "broken"
function = "steps.py:broken"

[[workflow.steps]]
id = "write"
[[workflow.steps.executors]]
name = "editor"
function = "steps.py:edit"
"""

STEPS = """
def broken(document):
    raise ValueError("no sources")


def edit(document):
    return f"gamma answer v{document['round_number']}"
"""


@pytest.fixture
def ran(tmp_path: Path, runner: CliRunner) -> tuple[Path, str]:
    """A workspace after one round of the three kinds of team, and its execution id."""
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    agents = ws / "configs" / "agents"
    (agents / "alpha.toml").write_text(BROADCAST_ALPHA, encoding="utf-8")
    (agents / "gamma.toml").write_text(WORKFLOW_GAMMA, encoding="utf-8")
    (agents / "steps.py").write_text(STEPS, encoding="utf-8")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "課題", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return ws, json.loads(result.stdout)["execution_id"]


def test_runs_show_names_each_teams_kind_and_a_workflow_rounds_steps(
    runner: CliRunner, ran: tuple[Path, str]
) -> None:
    ws, execution_id = ran
    text = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)])
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    heading = "completed, 1 round(s) scored, best round 1 ({}), stopped because max_rounds"
    beta = lines.index("team Beta (beta): " + heading.format("70.00"))  # selective: no mark
    alpha = lines.index("team Alpha (alpha) [broadcast]: " + heading.format("60.00"))
    gamma = lines.index("team Gamma (gamma) [workflow]: " + heading.format("50.00"))
    assert lines[gamma + 7 : gamma + 10] == [
        "    members: 2 succeeded, 1 failed",
        "    steps: research (scout, broken: failed), write (editor)",
        "",
    ]
    assert lines[alpha + 7 : alpha + 9] == ["    members: 1 succeeded, 0 failed", ""]  # no steps line
    assert lines[beta + 7 : beta + 9] == ["    members: 0 succeeded, 0 failed", ""]

    doc = json.loads(runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"]).stdout)
    assert {t["team_id"]: t["kind"] for t in doc["teams"]} == {
        "alpha": "broadcast",
        "beta": "selective",
        "gamma": "workflow",
    }


def test_runs_export_keeps_each_answers_step(runner: CliRunner, ran: tuple[Path, str]) -> None:
    ws, execution_id = ran
    exported = runner.invoke(app, ["runs", "export", execution_id, "--format", "json", "-w", str(ws)])
    assert exported.exit_code == 0, exported.output
    teams = {t["team_id"]: t for t in json.loads(exported.stdout)["teams"]}
    answers = teams["gamma"]["rounds"][0]["member_submissions"]
    assert [(a["step_id"], a["agent_name"], a["status"], a["error_message"]) for a in answers] == [
        ("research", "scout", "SUCCESS", None),
        ("research", "broken", "ERROR", "ValueError: no sources"),
        ("write", "editor", "SUCCESS", None),
    ]
    assert [a["step_id"] for a in teams["alpha"]["rounds"][0]["member_submissions"]] == [None]

    markdown = runner.invoke(app, ["runs", "export", execution_id, "--format", "markdown", "-w", str(ws)])
    assert markdown.exit_code == 0, markdown.output
    lines = markdown.stdout.splitlines()
    assert "## Team Gamma (gamma) [workflow]" in lines
    assert "## Team Alpha (alpha) [broadcast]" in lines
    assert "## Team Beta (beta)" in lines
    assert "- steps: research (scout, broken: failed), write (editor)" in lines
