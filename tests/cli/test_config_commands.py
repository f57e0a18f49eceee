"""`mixseek init`, `config init` and `config show`: what they write and print."""

from __future__ import annotations

import json
import tomllib
from datetime import date
from pathlib import Path

from typer.testing import CliRunner

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
