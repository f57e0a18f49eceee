"""`config validate`, `exec --dry-run` and `exec` check a workflow team before anything runs: its
functions, its agent executors' models, credentials, plugin types and sandboxes; one line each
naming the team file and the key, exit code 2, and no execution is created."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from e2e.db import rows
from mixseek.cli.app import app

KEY = {"OPENAI_API_KEY": "sk-test"}

WORKFLOW_TEAM = """
[team]
team_id = "wf"
team_name = "Workflow"

[{table}]
input = "all"
{output}

[[{table}.steps]]
id = "research"
[[{table}.steps.executors]]
name = "notes"
function = "steps.py:notes"
[[{table}.steps.executors]]
name = "more"
function = "{function}"

[[{table}.steps]]
id = "write"
[[{table}.steps.executors]]
name = "writer"
model = "{model}"
{writer}
"""

STEPS = """
VALUE = 3


class Thing:
    def __call__(self, document):
        return "thing"


def notes(document):
    return "notes"
"""


def add_workflow_team(
    ws: Path,
    *,
    function: str = "steps.py:notes",
    model: str = "openai:gpt-4o-mini",
    writer: str = "",
    table: str = "workflow",
    output: str = "",
) -> Path:
    """The workspace's third team: a workflow whose functions live beside its file."""
    agents = ws / "configs" / "agents"
    (agents / "steps.py").write_text(STEPS, encoding="utf-8")
    (agents / "boom.py").write_text("raise RuntimeError('boom at import')\n", encoding="utf-8")
    team = agents / "team-flow.toml"
    text = WORKFLOW_TEAM.format(function=function, model=model, writer=writer, table=table, output=output)
    team.write_text(text, encoding="utf-8")
    orchestrator = ws / "configs" / "orchestrator.toml"
    orchestrator.write_text(
        orchestrator.read_text(encoding="utf-8")
        + '\n[[orchestrator.teams]]\nconfig = "agents/team-flow.toml"\n',
        encoding="utf-8",
    )
    return team


def invoke(runner: CliRunner, ws: Path, command: str, env: dict[str, str] | None = None) -> Result:
    args = {
        "validate": ["config", "validate", "-w", str(ws)],
        "dry-run": ["exec", "a task", "-w", str(ws), "--dry-run"],
        "exec": ["exec", "a task", "-w", str(ws)],
    }[command]
    result = runner.invoke(app, args, env={**KEY, **(env or {})})
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def error_lines(result: Result, command: str) -> list[str]:
    lines = result.stderr.strip().splitlines()
    if command == "validate":
        assert lines[-1] == f"{len(lines) - 1} problem(s) found"
        return lines[:-1]
    return lines


def no_execution(ws: Path) -> None:
    db = ws / "mixseek.db"
    assert not db.exists() or rows(db, "SELECT count(*) FROM executions") == [(0,)]


@pytest.mark.parametrize(
    ("function", "reason"),
    [
        ("plugins/missing.py:notes", "file not found: {agents}/plugins/missing.py"),
        ("steps.py:nope", "module has no attribute 'nope'"),
        ("steps.py:VALUE", "VALUE is not a function"),
        ("steps.py:Thing", "Thing is not a function"),
        ("boom.py:notes", "importing {agents}/boom.py failed: boom at import"),
        (
            "no_such_module_h3:notes",
            "cannot import module 'no_such_module_h3': No module named 'no_such_module_h3'",
        ),
    ],
    ids=["no-file", "no-attribute", "not-callable", "a-class", "import-fails", "no-module"],
)
@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_a_broken_function_reference_is_one_line(
    runner: CliRunner, workspace: Path, command: str, function: str, reason: str
) -> None:
    team = add_workflow_team(workspace, function=function)
    result = invoke(runner, workspace, command)
    assert result.exit_code == 2
    agents = workspace / "configs" / "agents"
    assert error_lines(result, command) == [
        f"error: {team}: workflow.steps[0].executors[1].function: function '{function}': "
        + reason.format(agents=agents)
    ]
    no_execution(workspace)


@pytest.mark.parametrize("table", ["workflow", "team.workflow"])
@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_a_mistyped_executor_model_is_named_by_file_and_key(
    runner: CliRunner, workspace: Path, command: str, table: str
) -> None:
    team = add_workflow_team(workspace, model="opneai:gpt-4o", table=table)
    result = invoke(runner, workspace, command)
    assert result.exit_code == 2
    (line,) = error_lines(result, command)
    assert line.startswith(
        f"error: {team}: {table}.steps[1].executors[0].model: model 'opneai:gpt-4o' for executor 'writer' "
        "of team 'wf' has an unknown provider 'opneai' (did you mean 'openai'?)"
    )
    no_execution(workspace)


def test_an_executors_missing_credentials_are_reported(runner: CliRunner, workspace: Path) -> None:
    add_workflow_team(workspace, model="anthropic:claude-sonnet-4-0")
    env = {"ANTHROPIC_API_KEY": ""}
    validate = invoke(runner, workspace, "validate", env)
    assert validate.exit_code == 0, validate.stderr
    assert validate.stderr == (
        "warning: ANTHROPIC_API_KEY is not set (needed by executor 'writer' of team 'wf'); "
        "'mixseek exec' will need it\n"
    )
    dry_run = invoke(runner, workspace, "dry-run", env)
    assert dry_run.exit_code == 2
    assert dry_run.stderr == (
        "error: model 'anthropic:claude-sonnet-4-0' for executor 'writer' of team 'wf' needs credentials: "
        "set the environment variable ANTHROPIC_API_KEY\n"
    )


def test_a_workflow_team_needs_no_leader_credentials(runner: CliRunner, tmp_path: Path) -> None:
    """A workflow team has no leader: the default leader model's key is not asked for."""
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", "test"]).exit_code == 0
    add_workflow_team(ws, model="test")
    for command in ("validate", "dry-run"):
        result = invoke(runner, ws, command, {"OPENAI_API_KEY": ""})
        assert (result.exit_code, result.stderr) == (0, ""), command
    dry_run = invoke(runner, ws, "dry-run", {"OPENAI_API_KEY": ""})
    assert dry_run.stdout.startswith("dry run OK: 3 team(s) (analysts, writers, wf)")


DEEP = """
from pydantic import BaseModel
from mixseek.agents.member.base import MemberAgent, MemberResult


class Opts(BaseModel):
    depth: int


class Deep(MemberAgent):
    options_model = Opts

    async def run(self, task, *, usage=None, usage_limits=None):
        return MemberResult(content=str(self.options.depth))
"""


@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_a_custom_executor_class_is_checked_like_a_members(
    runner: CliRunner, workspace: Path, command: str
) -> None:
    """A missing class, and options its `options_model` refuses, each named by the executor's key."""
    (workspace / "configs/agents/deep.py").write_text(DEEP, encoding="utf-8")
    team = add_workflow_team(
        workspace,
        writer='agent_type = "custom"\nclass_path = "deep.py:Deep"\n'
        '[workflow.steps.executors.options]\ndepth = "deep"\n'
        '[[workflow.steps.executors]]\nname = "ghost"\nmodel = "test"\n'
        'agent_type = "custom"\nclass_path = "deep.py:Ghost"\n',
        output='output = "writer"',
    )
    result = invoke(runner, workspace, command)
    assert result.exit_code == 2
    assert error_lines(result, command) == [
        f"error: {team}: workflow.steps[1].executors[1].class_path: class_path 'deep.py:Ghost': "
        "module has no attribute 'Ghost'",
        f"error: {team}: workflow.steps[1].executors[0].options.depth: "
        "Input should be a valid integer, unable to parse string as an integer",
    ]
    no_execution(workspace)


def test_a_required_bubblewrap_of_an_executor_that_cannot_run_is_one_line(
    workspace: Path, tmp_path: Path
) -> None:
    """In a subprocess: whether bubblewrap runs is found out once per process."""
    team = add_workflow_team(
        workspace,
        writer='agent_type = "code-exec"\n[workflow.steps.executors.code_exec]\nsandbox = "bubblewrap"',
    )
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    env = {**os.environ, "PATH": str(no_bwrap), "HOME": str(tmp_path), **KEY}
    line = (
        f"error: {team}: workflow.steps[1].executors[0].code_exec.sandbox: bubblewrap cannot be used here: "
        "bwrap not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)\n"
    )
    for args in (["exec", "課題", "--dry-run"], ["config", "validate"]):
        done = subprocess.run(
            [sys.executable, "-m", "mixseek.cli", *args, "-w", str(workspace)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(line)
    no_execution(workspace)


def test_config_show_leaves_out_the_leader_a_workflow_team_does_not_have(
    runner: CliRunner, workspace: Path
) -> None:
    team = add_workflow_team(workspace)
    result = runner.invoke(app, ["config", "show", "-w", str(workspace), "--output-format", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)["sections"]["team wf"]}
    assert not [key for key in rows if key.startswith(("leader", "members", "member_dispatch"))]
    assert rows["workflow.input"] == {"key": "workflow.input", "value": "all", "source": str(team)}
    analysts = json.loads(result.stdout)["sections"]["team analysts"]
    assert any(row["key"] == "leader.model" for row in analysts)  # a leader team still shows its leader
