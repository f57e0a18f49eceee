"""Plugins installed as real distributions (entry points), met through the CLI: a member type with its
own options model and a metric, in `config validate`, `exec --dry-run` and a scripted `exec`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from plugins.dist import install_plugin, unique_module_name, write_distribution

COMMANDS = {
    "validate": ["config", "validate"],
    "dry-run": ["exec", "a task", "--dry-run"],
}


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    module = install_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return module


def _workspace(root: Path, options: str, *, metric: bool = False, max_rounds: int = 1) -> Path:
    """The scripted workspace with alpha's member made an `echo` plugin member with `options`."""
    ws = write_workspace(root, max_rounds=max_rounds)
    alpha = ws / "configs/agents/alpha.toml"
    text = alpha.read_text(encoding="utf-8").replace('agent_type = "plain"', 'agent_type = "echo"')
    alpha.write_text(text + options, encoding="utf-8")
    if metric:
        evaluator = ws / "configs/evaluator.toml"
        evaluator.write_text(
            evaluator.read_text(encoding="utf-8") + '[[evaluator.metrics]]\nname = "brevity"\n',
            encoding="utf-8",
        )
    return ws


def _invoke(runner: CliRunner, ws: Path, command: str) -> Result:
    with override_models(World().models()):
        result = runner.invoke(app, [*COMMANDS[command], "-w", str(ws)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _errors(result: Result, command: str) -> list[str]:
    lines = result.stderr.strip().splitlines()
    if command == "validate":
        assert lines[-1] == f"{len(lines) - 1} problem(s) found"
        return lines[:-1]
    return lines


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_valid_plugin_options_pass_validate_and_dry_run(
    runner: CliRunner, tmp_path: Path, plugin: str, command: str
) -> None:
    ws = _workspace(tmp_path / "ws", '[team.members.options]\nprefix = "> "\nrepeat = 2\n', metric=True)
    result = _invoke(runner, ws, command)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["validate", "dry-run"])
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            '[team.members.options]\nprefix = "> "\nrepeat = 9\n',
            "team.members[0].options.repeat: Input should be less than or equal to 5",
        ),
        ("[team.members.options]\nrepeat = 2\n", "team.members[0].options.prefix: required key is missing"),
        ("", "team.members[0].options.prefix: required key is missing"),
        (
            '[team.members.options]\nprefix = "> "\ncolour = "red"\n',
            "team.members[0].options.colour: unknown key",
        ),
    ],
    ids=["out-of-range", "missing", "no-table", "unknown-key"],
)
def test_bad_plugin_option_is_one_line_naming_file_and_key(
    runner: CliRunner, tmp_path: Path, plugin: str, command: str, options: str, expected: str
) -> None:
    ws = _workspace(tmp_path / "ws", options)
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [f"error: {ws / 'configs/agents/alpha.toml'}: {expected}"]


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_plugin_options_in_a_member_file_are_reported_there(
    runner: CliRunner, tmp_path: Path, plugin: str, command: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    member_file = ws / "configs/agents/echo.toml"
    member_file.write_text(
        '[member]\nagent_name = "helper"\nagent_type = "echo"\ntool_description = "d"\n'
        'model = "script:member"\n[member.options]\nprefix = 7\n',
        encoding="utf-8",
    )
    alpha = ws / "configs/agents/alpha.toml"
    text = alpha.read_text(encoding="utf-8").split("[[team.members]]")[0]
    alpha.write_text(text + '[[team.members]]\nconfig = "echo.toml"\n', encoding="utf-8")
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [
        f"error: {member_file}: member.options.prefix: Input should be a valid string"
    ]


@pytest.mark.parametrize("command", ["validate", "dry-run"])
@pytest.mark.parametrize(
    ("agent_type", "reason"),
    [
        ("plain", "agent_type 'plain' takes no options"),
        ("web-fetch", "agent_type 'web-fetch' takes its options from [team.members.web_fetch]"),
    ],
)
def test_options_table_on_a_builtin_type(
    runner: CliRunner, tmp_path: Path, command: str, agent_type: str, reason: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    alpha = ws / "configs/agents/alpha.toml"
    text = alpha.read_text(encoding="utf-8").replace('agent_type = "plain"', f'agent_type = "{agent_type}"')
    alpha.write_text(text + "[team.members.options]\nmax_chars = 10\n", encoding="utf-8")
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [f"error: {alpha}: team.members[0].options: {reason}"]


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_a_plugin_that_fails_to_import_is_one_line(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    module = unique_module_name("mixseek_broken_plugin")
    site = write_distribution(
        tmp_path / "site",
        "mixseek-broken-plugin",
        {module: "import mixseek_no_such_dependency\n"},
        {"mixseek.member_types": {"broken": f"{module}:Broken"}},
    )
    monkeypatch.syspath_prepend(str(site))
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    alpha = ws / "configs/agents/alpha.toml"
    alpha.write_text(
        alpha.read_text(encoding="utf-8").replace('agent_type = "plain"', 'agent_type = "broken"'),
        encoding="utf-8",
    )
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [
        f"error: {alpha}: team.members[0].agent_type: member type 'broken': entry point '{module}:Broken' "
        "(mixseek.member_types) failed to load: "
        "ModuleNotFoundError: No module named 'mixseek_no_such_dependency'"
    ]


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_unknown_metric_lists_installed_ones(
    runner: CliRunner, tmp_path: Path, plugin: str, command: str
) -> None:
    ws = _workspace(tmp_path / "ws", '[team.members.options]\nprefix = "> "\n')
    evaluator = ws / "configs/evaluator.toml"
    evaluator.write_text(
        evaluator.read_text(encoding="utf-8") + '[[evaluator.metrics]]\nname = "beauty"\n', encoding="utf-8"
    )
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [
        f"error: {evaluator}: evaluator.metrics[3]: unknown metric 'beauty': use one of clarity_coherence, "
        "coverage, relevance, llm_plain, length, patterns, json_schema, reference_similarity, brevity "
        'or set class_path = "module:Class" for a custom metric'
    ]


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_custom_class_options_are_checked_before_anything_runs(
    runner: CliRunner, tmp_path: Path, command: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    (ws / "configs/agents/echo_member.py").write_text(
        "from pydantic import BaseModel\n"
        "from mixseek.agents.member.base import MemberAgent, MemberResult\n"
        "class Opts(BaseModel):\n    depth: int\n"
        "class Deep(MemberAgent):\n    options_model = Opts\n"
        "    async def run(self, task, *, usage=None, usage_limits=None):\n"
        "        return MemberResult(content=str(self.options.depth))\n",
        encoding="utf-8",
    )
    alpha = ws / "configs/agents/alpha.toml"
    text = alpha.read_text(encoding="utf-8").replace(
        'agent_type = "plain"', 'agent_type = "custom"\nclass_path = "echo_member.py:Deep"'
    )
    alpha.write_text(text + '[team.members.options]\ndepth = "deep"\n', encoding="utf-8")
    result = _invoke(runner, ws, command)
    assert result.exit_code == 2
    assert _errors(result, command) == [
        f"error: {alpha}: team.members[0].options.depth: "
        "Input should be a valid integer, unable to parse string as an integer"
    ]


def test_plugin_member_and_metric_in_a_scripted_exec(runner: CliRunner, tmp_path: Path, plugin: str) -> None:
    ws = _workspace(tmp_path / "ws", '[team.members.options]\nprefix = "echo: "\nrepeat = 2\n', metric=True)
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert "Traceback" not in result.output
    assert result.exit_code == 0, result.stderr
    db = ws / "mixseek.db"

    # the member got its validated options: prefix and repeat shape its answer
    ((record,),) = rows(db, "SELECT member_submissions_record FROM round_history WHERE team_id = 'alpha'")
    submissions = json.loads(str(record))["submissions"]
    assert [(s["agent_name"], s["status"], s["content"]) for s in submissions] == [
        ("helper", "SUCCESS", "echo: round 1 echo: round 1")
    ]

    # the installed metric scored every submission, and its score is stored beside the built-ins'
    submission = "alpha answer v1 (echo: round 1 echo: round 1)"
    brevity = 100.0 - len(submission)
    score, details, feedback = rows(
        db,
        "SELECT evaluation_score, score_details, evaluation_feedback FROM leader_board "
        "WHERE team_id = 'alpha' AND round_number = 1",
    )[0]
    assert json.loads(str(details))["brevity"] == {"score": brevity, "comment": f"{len(submission)} chars"}
    assert score == pytest.approx((60.0 * 3 + brevity) / 4)
    assert str(feedback).splitlines()[-1] == f"[brevity] {len(submission)} chars"
    assert rows(db, "SELECT count(*) FROM leader_board WHERE score_details->>'brevity' IS NOT NULL") == [(3,)]
