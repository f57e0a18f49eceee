"""The suite cannot reach a real provider: a model left without an override refuses to send."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mixseek.cli.app import app

MEMBER = """
[member]
agent_name = "analyst"
agent_type = "plain"
tool_description = "分析する"
model = "openai:gpt-4o-mini"
"""


def test_a_member_on_a_real_provider_model_is_refused_before_any_request(
    tmp_path: Path, runner: CliRunner
) -> None:
    member = tmp_path / "m.toml"
    member.write_text(MEMBER, encoding="utf-8")
    # a key that looks real and a base URL nothing listens on: only the global guard stops the call
    env = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    result = runner.invoke(app, ["member", "調べて", "-c", str(member)], env=env)
    assert result.exit_code != 0
    assert "ALLOW_MODEL_REQUESTS is False" in str(result.exception)
