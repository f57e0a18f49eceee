"""Team files with `[workflow]`: a bad one is one line `file: key: reason`, whether loaded in code
(`load_team`) or checked with `mixseek config validate` (exit code 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.config.teams import load_team
from mixseek.config.workflow_models import AgentExecutorConfig, FunctionExecutorConfig
from mixseek.errors import ConfigError

HEAD = '[team]\nteam_id = "writers"\nteam_name = "Writers"\n'


def step(step_id: str, *executors: str, extra: str = "") -> str:
    """A `[[workflow.steps]]` table; each executor is `name=function` or `name@model`."""
    text = f'\n[[workflow.steps]]\nid = "{step_id}"\n{extra}'
    for executor in executors:
        if "@" in executor:
            name, model = executor.split("@")
            text += f'\n[[workflow.steps.executors]]\nname = "{name}"\nmodel = "{model}"\n'
        else:
            name, function = executor.split("=")
            text += f'\n[[workflow.steps.executors]]\nname = "{name}"\nfunction = "{function}"\n'
    return text


MODEL = "openai:gpt-4o-mini"
VALID = HEAD + step("research", "facts=json:dumps") + step("edit", f"editor@{MODEL}")

CASES: list[tuple[str, str, str]] = [
    # (id, team file, expected "key: reason")
    (
        "duplicate-step-id",
        HEAD + step("a", "f=json:dumps") + step("a", "g=json:dumps"),
        "workflow.steps: duplicate step id: a",
    ),
    (
        "empty-step",
        HEAD + step("a", extra="executors = []\n"),
        "workflow.steps[0].executors: a step needs at least one executor",
    ),
    (
        "empty-workflow",
        HEAD + "\n[workflow]\nsteps = []\n",
        "workflow.steps: a workflow needs at least one step",
    ),
    ("workflow-without-steps", HEAD + "\n[workflow]\n", "workflow.steps: required key is missing"),
    (
        "duplicate-executor-name",
        HEAD + step("a", "f=json:dumps", "f=json:loads") + step("b", "g=json:dumps"),
        "workflow.steps: duplicate executor name: f",
    ),
    (
        "output-not-in-last-step",
        HEAD + '\n[workflow]\noutput = "f"\n' + step("a", "f=json:dumps") + step("b", "g=json:dumps"),
        "workflow.output: 'f' is not an executor of the last step 'b' (it has g)",
    ),
    (
        "output-missing",
        HEAD + step("a", "f=json:dumps") + step("b", "g=json:dumps", "h=json:dumps"),
        "workflow.output: the last step 'b' has 2 executors (g, h); "
        "name the one whose result is the submission",
    ),
    (
        "bad-function-reference",
        HEAD + step("a", "f=json.dumps"),
        "workflow.steps[0].executors[0].function: "
        "expected 'module:function' or 'path/to/file.py:function' (got 'json.dumps')",
    ),
    (
        "unknown-agent-type",
        HEAD
        + step(
            "a", extra=f'[[workflow.steps.executors]]\nname = "w"\nagent_type = "wizard"\nmodel = "{MODEL}"\n'
        ),
        "workflow.steps[0].executors[0].agent_type: "
        "agent_type must be one of plain, web-search, web-fetch, code-exec, custom (got 'wizard')",
    ),
    (
        "function-executor-with-a-model",
        HEAD
        + step(
            "a",
            extra=f'[[workflow.steps.executors]]\nname = "f"\nfunction = "json:dumps"\nmodel = "{MODEL}"\n',
        ),
        "workflow.steps[0].executors[0].model: unknown key",
    ),
    (
        "function-timeout-zero",
        HEAD
        + step(
            "a",
            extra='[[workflow.steps.executors]]\nname = "f"\nfunction = "json:dumps"\ntimeout_seconds = 0\n',
        ),
        "workflow.steps[0].executors[0].timeout_seconds: Input should be greater than 0",
    ),
    (
        "bad-step-input",
        HEAD + step("a", "f=json:dumps", extra='input = "everything"\n'),
        "workflow.steps[0].input: Input should be 'previous' or 'all'",
    ),
    (
        "executor-member-file",
        HEAD
        + step(
            "a", extra=f'[[workflow.steps.executors]]\nname = "w"\nmodel = "{MODEL}"\nconfig = "w.toml"\n'
        ),
        "workflow.steps[0].executors[0]: config: member file references are for [[team.members]]; "
        "write an executor's keys inline",
    ),
    (
        "workflow-and-members",
        HEAD
        + '\n[[team.members]]\nagent_name = "x"\nagent_type = "plain"\ntool_description = "d"\n'
        + f'model = "{MODEL}"\n'
        + step("a", "f=json:dumps"),
        "team: members: a workflow team has no members: its executors are in [workflow]",
    ),
    (
        "workflow-and-leader",
        HEAD + f'\n[team.leader]\nmodel = "{MODEL}"\n' + step("a", "f=json:dumps"),
        "team: leader: a workflow team has no leader: its last step writes the submission",
    ),
    (
        "workflow-given-twice",
        HEAD
        + '\n[[team.workflow.steps]]\nid = "t"\nexecutors = [{name = "f", function = "json:dumps"}]\n'
        + step("a", "f=json:dumps"),
        "workflow: given twice: as [workflow] and as [team.workflow]",
    ),
]
IDS = [c[0] for c in CASES]


def test_load_team_reads_a_top_level_workflow(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(VALID + '\n[workflow]\ninput = "all"\n', encoding="utf-8")
    config = load_team(path).config
    assert config.kind == "workflow"
    workflow = config.workflow
    assert workflow is not None
    assert (workflow.input, workflow.output_executor) == ("all", "editor")
    assert [(s.id, [e.name for e in s.executors]) for s in workflow.steps] == [
        ("research", ["facts"]),
        ("edit", ["editor"]),
    ]
    facts, editor = workflow.steps[0].executors[0], workflow.steps[1].executors[0]
    assert isinstance(facts, FunctionExecutorConfig) and facts.function == "json:dumps"
    assert facts.timeout_seconds == 300
    assert isinstance(editor, AgentExecutorConfig)
    assert (editor.agent_name, editor.agent_type, editor.model) == ("editor", "plain", MODEL)


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=IDS)
def test_load_team_reports_one_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "team.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_team(path)
    assert [str(p) for p in info.value.all_problems()] == [f"{path}: {expected}"]


def _validate(runner: CliRunner, workspace: Path) -> tuple[int, list[str]]:
    result = runner.invoke(
        app, ["config", "validate", "-w", str(workspace)], env={"OPENAI_API_KEY": "sk-test"}
    )
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, [line for line in result.stderr.splitlines() if line.startswith("error:")]


def test_config_validate_accepts_a_workflow_team(runner: CliRunner, workspace: Path) -> None:
    (workspace / "configs/agents/team-writers.toml").write_text(VALID, encoding="utf-8")
    code, errors = _validate(runner, workspace)
    assert (code, errors) == (0, [])


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=IDS)
def test_config_validate_reports_one_line_and_exit_code_2(
    runner: CliRunner, workspace: Path, text: str, expected: str
) -> None:
    team_file = workspace / "configs/agents/team-writers.toml"
    team_file.write_text(text, encoding="utf-8")
    code, errors = _validate(runner, workspace)
    assert (code, errors) == (2, [f"error: {team_file}: {expected}"])
