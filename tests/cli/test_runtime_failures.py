"""Failures at run time — not the input's fault — end a command as bad input does: one line on
stderr and exit code 2 (README: "2 failure or bad input"), never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

EVALUATOR = """
[evaluator]
model = "script:judge"
max_retries = 0

[[evaluator.metrics]]
name = "relevance"
"""

# Holds the store's file open read-write (so locked against every other process) until killed.
HOLD_LOCK = """
import duckdb, sys, time
conn = duckdb.connect(sys.argv[1])
print("locked", flush=True)
time.sleep(600)
"""


def test_a_failing_metric_is_one_line_and_exit_2(tmp_path: Path, runner: CliRunner) -> None:
    def judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionRefusedError("the scoring service refused the connection")

    config = tmp_path / "evaluator.toml"
    config.write_text(EVALUATOR, encoding="utf-8")
    with override_models({"script:judge": FunctionModel(judge)}):
        result = runner.invoke(app, ["evaluate", "課題", "提出", "-c", str(config)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: evaluator metric 'relevance' failed: "
        "ConnectionRefusedError: the scoring service refused the connection\n"
    )


@pytest.fixture
def locked_store(workspace: Path) -> Iterator[Path]:
    """The workspace's store, held by another process for as long as the test runs."""
    db = workspace / "mixseek.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield db
    finally:
        holder.kill()
        holder.wait(timeout=60)


def test_a_store_locked_by_another_process_is_one_line_and_exit_2(
    workspace: Path, locked_store: Path, runner: CliRunner
) -> None:
    result = runner.invoke(app, ["runs", "list", "-w", str(workspace)])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert re.fullmatch(
        rf"error: {re.escape(str(locked_store))}: database stayed locked through 12 attempts: "
        r"IO Error: Could not set lock on file .*Conflicting lock is held.*",
        lines[0],
    ), lines[0]
