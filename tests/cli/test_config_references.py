"""Bad input found before anything runs: bytes that are not UTF-8, a bad $TZ, a mistyped model or plugin.

Each is one line naming the file (or variable), the key and the reason, exit code 2, from
`config validate`, `exec --dry-run` and `exec` alike; `exec` creates no execution.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

KEY = {"OPENAI_API_KEY": "sk-test"}
BAD_TZ_LINE = (
    "error: Invalid timezone in TZ environment variable: Mars/Olympus. "
    "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
)


def _invoke(runner: CliRunner, ws: Path, command: str, env: dict[str, str] | None = None) -> Result:
    args = {
        "validate": ["config", "validate", "-w", str(ws)],
        "dry-run": ["exec", "a task", "-w", str(ws), "--dry-run"],
        "exec": ["exec", "a task", "-w", str(ws)],
    }[command]
    result = runner.invoke(app, args, env={**KEY, **(env or {})})
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _error_lines(result: Result, command: str) -> list[str]:
    """The problem lines: `config validate` ends with a count, which is checked here."""
    lines = result.stderr.strip().splitlines()
    if command == "validate":
        assert lines[-1] == f"{len(lines) - 1} problem(s) found"
        return lines[:-1]
    return lines


def _no_execution(ws: Path) -> None:
    db = ws / "mixseek.db"
    assert not db.exists() or rows(db, "SELECT count(*) FROM executions") == [(0,)]


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


# -- files that are not UTF-8 ---------------------------------------------------------------------

NOT_UTF8_FILES = [
    "configs/orchestrator.toml",
    "configs/agents/team-analysts.toml",
    "configs/agents/members/writer.toml",
    "configs/evaluator.toml",
    "configs/judgment.toml",
    "configs/prompt_builder.toml",
]


@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
@pytest.mark.parametrize("file", NOT_UTF8_FILES)
def test_a_config_file_that_is_not_utf8_is_one_line(
    runner: CliRunner, workspace: Path, file: str, command: str
) -> None:
    path = workspace / file
    path.write_bytes(b"# caf\xe9\n" + path.read_bytes())  # Latin-1 "é" at offset 5
    result = _invoke(runner, workspace, command)
    assert result.exit_code == 2
    assert _error_lines(result, command) == [f"error: {path}: not UTF-8 text (byte 0xe9 at offset 5)"]
    _no_execution(workspace)


@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_a_plugin_file_that_is_not_utf8_is_one_line(runner: CliRunner, workspace: Path, command: str) -> None:
    team = workspace / "configs/agents/team-writers.toml"
    _append(
        team,
        '\n[[team.members]]\nagent_name = "mine"\nagent_type = "custom"\n'
        'tool_description = "d"\nmodel = "openai:gpt-4o-mini"\nclass_path = "plugins/mine.py:Mine"\n',
    )
    plugin = workspace / "configs/agents/plugins/mine.py"
    plugin.parent.mkdir()
    plugin.write_bytes(b"x = 1\n# \xff\n")
    result = _invoke(runner, workspace, command)
    assert result.exit_code == 2
    assert _error_lines(result, command) == [
        f"error: {team}: team.members[1].class_path: class_path 'plugins/mine.py:Mine': "
        f"{plugin}: not UTF-8 text (byte 0xff at offset 8)"
    ]
    _no_execution(workspace)


# -- $TZ -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "dry-run"])
def test_bad_tz_is_refused_by_validate_and_dry_run(runner: CliRunner, workspace: Path, command: str) -> None:
    result = _invoke(runner, workspace, command, env={"TZ": "Mars/Olympus"})
    assert result.exit_code == 2
    assert _error_lines(result, command) == [BAD_TZ_LINE]


def test_bad_tz_stops_exec_before_any_execution_exists(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    world = World()
    with override_models(world.models()):
        result = _invoke(runner, ws, "exec", env={"TZ": "Mars/Olympus"})
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [BAD_TZ_LINE]
    assert world.calls == 0 and world.team_prompts == {}
    _no_execution(ws)


def test_good_tz_still_runs(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    with override_models(World().models()):
        result = _invoke(runner, ws, "exec", env={"TZ": ":Asia/Tokyo"})
    assert result.exit_code == 0, result.stderr


def test_bad_tz_is_one_line_for_evaluate(runner: CliRunner, workspace: Path) -> None:
    result = runner.invoke(
        app, ["evaluate", "a task", "an answer", "-w", str(workspace)], env={**KEY, "TZ": "Mars/Olympus"}
    )
    assert "Traceback" not in result.output
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [BAD_TZ_LINE]


# -- model strings ---------------------------------------------------------------------------------


def _set_model(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_mistyped_model_strings_are_reported_with_file_and_key(
    runner: CliRunner, workspace: Path, command: str
) -> None:
    configs = workspace / "configs"
    team = configs / "agents/team-analysts.toml"
    member = configs / "agents/members/writer.toml"
    judgment = configs / "judgment.toml"
    _set_model(team, 'model = "openai:gpt-4o-mini"', 'model = "gpt4o"')  # the leader's
    _set_model(member, 'model = "openai:gpt-4o-mini"', 'model = "local:smollm3"')
    _set_model(judgment, 'model = "openai:gpt-4o-mini"', 'model = "opneai:gpt-4o"')
    result = _invoke(runner, workspace, command)
    assert result.exit_code == 2
    lines = _error_lines(result, command)
    assert len(lines) == 3, lines
    assert lines[0].startswith(
        f"error: {team}: team.leader.model: model 'gpt4o' for leader of team 'analysts' is malformed: "
    )
    assert lines[1] == (
        f"error: {member}: member.model: model 'local:smollm3' for member 'writer' of team 'writers': "
        "unknown local model 'smollm3': use 'local:smollm2' or 'local:/path/to/model.gguf'"
    )
    assert lines[2].startswith(
        f"error: {judgment}: judgment.model: model 'opneai:gpt-4o' for judgment has an unknown provider "
        "'opneai' (did you mean 'openai'?)"
    )
    _no_execution(workspace)


def test_a_model_overridden_inline_is_blamed_on_the_team_file(runner: CliRunner, workspace: Path) -> None:
    team = workspace / "configs/agents/team-writers.toml"
    _set_model(team, 'config = "members/writer.toml"', 'config = "members/writer.toml"\nmodel = "opneai:x"')
    result = _invoke(runner, workspace, "validate")
    assert result.exit_code == 2
    (line,) = _error_lines(result, "validate")
    assert line.startswith(f"error: {team}: team.members[0].model: model 'opneai:x' for member 'writer'")


def test_a_model_from_the_environment_is_blamed_on_the_variable(runner: CliRunner, workspace: Path) -> None:
    result = _invoke(runner, workspace, "validate", env={"MIXSEEK_EVALUATOR__MODEL": "gpt4o"})
    assert result.exit_code == 2
    (line,) = _error_lines(result, "validate")  # one line, though three metrics use the model
    assert line.startswith(
        "error: env MIXSEEK_EVALUATOR__MODEL: model 'gpt4o' for evaluator metric 'coverage' is malformed: "
    )


# -- class_path targets ----------------------------------------------------------------------------

PLUGIN = """
from mixseek.evaluator.metrics.base import Metric


class NotAMetric:
    pass
"""


@pytest.mark.parametrize(
    ("class_path", "reason"),
    [
        ("plugins/missing.py:Mine", "file not found: {configs}/plugins/missing.py"),
        ("plugins/metric.py:Nope", "module has no attribute 'Nope'"),
        (
            "plugins/metric.py:NotAMetric",
            "NotAMetric must subclass mixseek.evaluator.metrics.base.Metric",
        ),
        ("plugins/boom.py:Mine", "importing {configs}/plugins/boom.py failed: boom at import"),
        (
            "no_such_module_h3:Mine",
            "cannot import module 'no_such_module_h3': No module named 'no_such_module_h3'",
        ),
    ],
    ids=["no-file", "no-class", "wrong-base", "import-fails", "no-module"],
)
@pytest.mark.parametrize("command", ["validate", "dry-run", "exec"])
def test_a_broken_metric_class_path_is_one_line(
    runner: CliRunner, workspace: Path, command: str, class_path: str, reason: str
) -> None:
    configs = workspace / "configs"
    (configs / "plugins").mkdir()
    (configs / "plugins/metric.py").write_text(PLUGIN, encoding="utf-8")
    (configs / "plugins/boom.py").write_text("raise RuntimeError('boom at import')\n", encoding="utf-8")
    evaluator = configs / "evaluator.toml"
    _append(evaluator, f'\n[[evaluator.metrics]]\nname = "mine"\nweight = 0.1\nclass_path = "{class_path}"\n')
    result = _invoke(runner, workspace, command)
    assert result.exit_code == 2
    assert _error_lines(result, command) == [
        f"error: {evaluator}: evaluator.metrics[4].class_path: class_path '{class_path}': "
        + reason.format(configs=configs)
    ]
    _no_execution(workspace)


def test_sample_workspace_has_no_reference_problems(runner: CliRunner, workspace: Path) -> None:
    for command in ("validate", "dry-run"):
        result = _invoke(runner, workspace, command)
        assert result.exit_code == 0, result.stderr
