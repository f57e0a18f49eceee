"""What a new user meets first: `--version`, the README's command table, `config show`'s sources."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.scripted import write_workspace
from mixseek.cli.app import app
from mixseek.telemetry import INSTALL_OTEL

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def readme_commands() -> list[str]:
    """The commands of the README's table, with `\\|` unescaped."""
    return [m.replace("\\|", "|") for m in re.findall(r"^\| `(mixseek[^`]*)` \|", README, re.M)]


def test_version(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"mixseek {PYPROJECT['project']['version']}\n")
    assert "mixseek --version" in readme_commands()


def _command_path(command: str) -> list[str]:
    words = command.split()[1:]
    return words[:2] if words and words[0] in ("runs", "config", "judges") else words[:1]


def test_every_option_in_the_readme_table_exists(runner: CliRunner) -> None:
    commands = readme_commands()
    assert len(commands) >= 10
    for command in commands:
        path = _command_path(command)
        if path == ["--version"]:
            continue
        help_text = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", command):
            assert re.search(rf"(?<![\w-]){option}(?![\w-])", help_text), (command, option)


def test_readme_shows_what_the_cli_requires_as_required(tmp_path: Path, runner: CliRunner) -> None:
    commands = readme_commands()
    # -w is needed unless MIXSEEK_WORKSPACE is set; only doctor runs without a workspace
    assert [c for c in commands if "[-w DIR]" in c] == [c for c in commands if c.startswith("mixseek doctor")]
    assert "`-w DIR` may be left out when `MIXSEEK_WORKSPACE` names the workspace" in README
    (export,) = [c for c in commands if c.startswith("mixseek runs export")]
    assert "--format json|markdown" in export and "[--format" not in export

    no_workspace = runner.invoke(app, ["init"])
    assert (no_workspace.exit_code, no_workspace.stderr) == (
        2,
        "error: --workspace: no workspace given: pass --workspace/-w DIR or set MIXSEEK_WORKSPACE\n",
    )
    from_env = runner.invoke(app, ["init"], env={"MIXSEEK_WORKSPACE": str(tmp_path / "ws")})
    assert from_env.exit_code == 0 and (tmp_path / "ws" / "configs" / "orchestrator.toml").is_file()
    no_format = runner.invoke(app, ["runs", "export", "some-id", "-w", str(tmp_path / "ws")])
    assert (no_format.exit_code, no_format.stderr) == (
        2,
        "error: --format: must be 'json', 'markdown' or 'html'\n",
    )


def test_readme_states_the_python_version_the_package_requires() -> None:
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert "mixseek needs Python 3.11 or newer" in README


def test_readme_sdk_hint_matches_the_one_mixseek_prints() -> None:
    assert "pip install 'mixseek[" not in README
    otel = " ".join(
        f"'{requirement}'" for requirement in PYPROJECT["project"]["optional-dependencies"]["otel"]
    )
    assert f"pip install {otel}" in README
    assert f"pip install {otel}" == INSTALL_OTEL
    assert "`pip install 'pydantic-ai-slim[openai]'`" in README
    assert PYPROJECT["project"]["optional-dependencies"]["openai"] == ["pydantic-ai-slim[openai]>=2.60"]


LEADER_WITHOUT_MODEL = """
[team]
team_id = "alpha"
team_name = "Alpha"

[team.leader]
max_retries = 2
"""


def test_config_show_credits_defaults_to_default_not_to_the_team_file(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = write_workspace(tmp_path / "ws")
    team_file = ws / "configs" / "agents" / "alpha.toml"
    team_file.write_text(LEADER_WITHOUT_MODEL, encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000")
    result = runner.invoke(app, ["config", "show", "-w", str(ws), "--output-format", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)["sections"]["team alpha"]}
    assert rows["team_id"]["source"] == str(team_file)
    assert rows["leader.max_retries"] == {"key": "leader.max_retries", "value": "2", "source": str(team_file)}
    assert rows["leader.model"] == {"key": "leader.model", "value": "openai:gpt-4o", "source": "default"}
    assert rows["max_concurrent_members"]["source"] == "default"
    assert rows["members"] == {"key": "members", "value": "[]", "source": "default"}
