"""`mixseek init`, `config init` and `config show`: what they write and print."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from datetime import date
from pathlib import Path

from typer.testing import CliRunner

from e2e.scripted import write_workspace
from mixseek.cli.app import app
from mixseek.prompt_builder.constants import DEFAULT_TEAM_USER_PROMPT

SEED_PROMPT_BUILDER_HEADER = """# UserPromptBuilder 設定ファイル
# 生成日時: {date}

[prompt_builder]
# Teamに渡すユーザプロンプトのJinja2テンプレート
# 利用可能なプレースホルダー変数:
#   - {{{{ user_prompt }}}}            : 元のユーザプロンプト
#   - {{{{ round_number }}}}            : 現在のラウンド番号（整数）
#   - {{{{ submission_history }}}}      : 過去のSubmission履歴（整形済み文字列）
#   - {{{{ ranking_table }}}}           : Leader Boardランキング情報（整形済み文字列）
#   - {{{{ team_position_message }}}}   : チーム順位メッセージ（整形済み文字列）
#   - {{{{ current_datetime }}}}        : 現在日時（ISO 8601形式、タイムゾーン付き）
#
# 注意:
#   - すべてのプレースホルダー変数は、UserPromptBuilder内で事前に整形されます
#   - テンプレート内でforループやフィルタを使用することは推奨されません
#   - 環境変数TZでタイムゾーンを設定できます（デフォルト: UTC）

team_user_prompt = \"\"\"
"""


def test_init_writes_a_complete_workspace(workspace: Path) -> None:
    files = sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*") if p.is_file())
    assert files == [
        "configs/agents/members/writer.toml",
        "configs/agents/team-analysts.toml",
        "configs/agents/team-writers.toml",
        "configs/evaluator.toml",
        "configs/judgment.toml",
        "configs/orchestrator.toml",
        "configs/prompt_builder.toml",
        "prompt.txt",
    ]
    assert (workspace / "logs").is_dir()
    analysts = tomllib.loads((workspace / "configs/agents/team-analysts.toml").read_text(encoding="utf-8"))
    assert [m["agent_name"] for m in analysts["team"]["members"]] == ["analyst", "critic"]
    assert analysts["team"]["leader"]["model"] == "openai:gpt-4o-mini"


def test_init_model_option_writes_every_role(tmp_path: Path, runner: CliRunner) -> None:
    root = tmp_path / "ws"
    result = runner.invoke(app, ["init", "-w", str(root), "--model", "anthropic:claude-sonnet-4-5"])
    assert result.exit_code == 0
    texts = [p.read_text(encoding="utf-8") for p in (root / "configs").rglob("*.toml")]
    models = [line for text in texts for line in text.splitlines() if line.startswith("model = ")]
    assert len(models) == 7  # 2 leaders, 3 members, evaluator, judgment
    assert set(models) == {'model = "anthropic:claude-sonnet-4-5"'}


def test_config_init_writes_seed_prompt_builder_toml(tmp_path: Path, runner: CliRunner) -> None:
    root = tmp_path / "fresh"
    result = runner.invoke(app, ["config", "init", "-w", str(root)])
    assert result.exit_code == 0, result.output
    text = (root / "configs" / "prompt_builder.toml").read_text(encoding="utf-8")
    assert text.startswith(SEED_PROMPT_BUILDER_HEADER.format(date=date.today().isoformat()))
    assert tomllib.loads(text)["prompt_builder"]["team_user_prompt"] == DEFAULT_TEAM_USER_PROMPT


def test_config_init_other_kinds(tmp_path: Path, runner: CliRunner) -> None:
    out = tmp_path / "my-member.toml"
    result = runner.invoke(
        app, ["config", "init", "--kind", "member", "-o", str(out), "-m", "groq:llama-3.3-70b"]
    )
    assert result.exit_code == 0
    member = tomllib.loads(out.read_text(encoding="utf-8"))["member"]
    assert (member["agent_type"], member["model"]) == ("plain", "groq:llama-3.3-70b")


def test_config_show_values_sources_and_masked_secrets(
    workspace: Path, runner: CliRunner, monkeypatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-1234")
    monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__MAX_ROUNDS", "7")
    result = runner.invoke(app, ["config", "show", "-w", str(workspace), "--output-format", "json"])
    assert result.exit_code == 0, result.output
    assert "sk-secret-value" not in result.stdout
    data = json.loads(result.stdout)
    sections = data["sections"]
    orchestrator = {row["key"]: row for row in sections["orchestrator"]}
    assert orchestrator["max_rounds"] == {
        "key": "max_rounds",
        "value": "7",
        "source": "env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS",
    }
    assert orchestrator["max_concurrent_teams"]["source"] == str(workspace / "configs" / "orchestrator.toml")
    assert orchestrator["max_total_tokens"] == {
        "key": "max_total_tokens",
        "value": "null",
        "source": "default",
    }
    assert sections["credentials"] == [
        {"key": "OPENAI_API_KEY", "value": "****1234", "source": "needed by leader of team 'analysts'"}
    ]
    assert {row["key"] for row in sections["team analysts"]} >= {"team_id", "leader.model", "members"}
    prompt = {row["key"]: row for row in sections["prompt_builder"]}
    assert prompt["team_user_prompt"]["source"] == str(workspace / "configs" / "prompt_builder.toml")
    assert prompt["evaluator_user_prompt"]["source"] == str(workspace / "configs" / "prompt_builder.toml")
    assert prompt["submission_preview_chars"]["source"] == "default"


def test_config_show_text(workspace: Path, runner: CliRunner) -> None:
    result = runner.invoke(app, ["config", "show", "-w", str(workspace)], env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 0
    assert "orchestrator" in result.stdout and "credentials" in result.stdout
    assert "(not set)" in result.stdout


def test_config_show_at_80_columns_names_each_file_once_and_wraps_no_path(tmp_path: Path) -> None:
    """Each table's heading names its file relative to the workspace (the first line names the
    workspace); a row set by that file says `file`, so no row's source wraps a long path over
    several lines. A file outside the workspace (`--config`) is named whole."""
    ws = write_workspace(tmp_path / "a-rather-long-directory-name" / "for-a-workspace", max_rounds=2)
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text(
        (ws / "configs/orchestrator.toml")
        .read_text(encoding="utf-8")
        .replace('"agents/', f'"{ws}/configs/agents/'),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    env.update(COLUMNS="80", TERM="dumb", NO_COLOR="1")

    def show(*args: str, variables: dict[str, str] | None = None) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "mixseek.cli", "config", "show", "-w", str(ws), *args],
            capture_output=True, text=True, env={**env, **(variables or {})}, timeout=300, check=False,
        )  # fmt: skip
        assert (proc.returncode, proc.stderr) == (0, "")
        return [line.rstrip() for line in proc.stdout.splitlines()]

    lines = show()
    assert lines[:8] == [
        f"workspace: {ws}",
        "orchestrator: configs/orchestrator.toml",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┓",
        "┃ key                               ┃ value                          ┃ source  ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━┩",
        "│ max_rounds                        │ 2                              │ file    │",
        "│ min_rounds                        │ 1                              │ file    │",
        "│ max_concurrent_teams              │ 3                              │ file    │",
    ]
    assert "│ timeout_per_team_seconds          │ 600.0                          │ default │" in lines
    headings = [line for line in lines if line[:1] not in "┏┃┡│└"]
    assert headings == [
        f"workspace: {ws}",
        "orchestrator: configs/orchestrator.toml",
        "evaluator: configs/evaluator.toml",
        "judgment: configs/judgment.toml",
        "prompt_builder",  # every value a default: no file to name
        "team alpha: configs/agents/alpha.toml",
        "team beta: configs/agents/beta.toml",
        "team gamma: configs/agents/gamma.toml",
        "credentials",
    ]
    assert not any(str(tmp_path)[-20:] in line for line in lines[1:])  # no path, nor part of one
    assert all(len(line) <= 80 for line in lines[1:])

    # a value from the environment names its variable
    varied = show(variables={"MIXSEEK_ORCHESTRATOR__MIN_ROUNDS": "2"})
    at = varied.index(next(line for line in varied if line.startswith("│ min_rounds ")))
    end = varied.index(next(line for line in varied if line.startswith("│ max_concurrent_teams ")))
    cells = [line.strip("│").split("│") for line in varied[at:end]]
    assert [cell.strip() for cell in cells[0][:2]] == ["min_rounds", "2"]
    assert "".join(row[2].strip() for row in cells) == "envMIXSEEK_ORCHESTRATOR__MIN_ROUNDS"

    outside = show("--config", str(elsewhere))
    assert outside[1] == f"orchestrator: {elsewhere}"
    assert outside[5] == "│ max_rounds                        │ 2                              │ file    │"
