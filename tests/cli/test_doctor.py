"""`mixseek doctor`: one line per check, FAIL naming what is wrong and how to fix it, exit 2."""

from __future__ import annotations

import importlib.metadata
import json
import struct
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm.local_model import selftest

SECRET = "sk-doctor-secret-0123456789"


@pytest.fixture(autouse=True)
def _quick_self_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The self-test child succeeds at once and remembers nothing outside the test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(selftest, "child_command", lambda model_path: [sys.executable, "-c", "pass"])


def doctor(runner: CliRunner, *args: str) -> tuple[int, list[tuple[str, str, str]]]:
    result = runner.invoke(app, ["doctor", *args])
    assert "Traceback" not in result.output
    assert result.stderr == ""
    rows = [line.split(None, 2) for line in result.stdout.splitlines()]
    assert all(len(row) == 3 and row[0] in ("OK", "WARN", "FAIL") for row in rows), result.stdout
    return result.exit_code, [(row[0], row[1], row[2]) for row in rows]


def failures(rows: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    return [(name, detail) for status, name, detail in rows if status == "FAIL"]


def test_a_healthy_workspace(runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result = runner.invoke(app, ["doctor", "-w", str(workspace)])
    assert result.exit_code == 0, result.stdout
    assert SECRET not in result.stdout and SECRET[-4:] not in result.stdout
    code, rows = doctor(runner, "-w", str(workspace))
    assert code == 0
    assert failures(rows) == []
    names = [name for _, name, _ in rows]
    for name in ("python", "mixseek", "pydantic-ai-slim", "duckdb", "workspace", "config", "store"):
        assert name in names
    checks = {name: (status, detail) for status, name, detail in rows}
    assert checks["mixseek"] == ("OK", importlib.metadata.version("mixseek"))
    assert checks["config"] == ("OK", "2 team(s): analysts, writers")
    assert checks["credentials"] == ("OK", "openai:gpt-4o-mini: OPENAI_API_KEY is set")


def test_json_output(runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result = runner.invoke(app, ["doctor", "-w", str(workspace), "--output-format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["ok"] is True
    assert {"status": "OK", "name": "config", "detail": "2 team(s): analysts, writers", "fix": None} in (
        data["checks"]
    )


def test_a_missing_key(runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, rows = doctor(runner, "-w", str(workspace))
    assert code == 2
    assert failures(rows) == [
        (
            "credentials",
            "openai:gpt-4o-mini: OPENAI_API_KEY is not set (needed by leader of team 'analysts' and 7 more); "
            "fix: export OPENAI_API_KEY=...",
        )
    ]


def test_a_broken_config_file(runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    orchestrator = workspace / "configs" / "orchestrator.toml"
    orchestrator.write_text("[orchestrator\n", encoding="utf-8")
    code, rows = doctor(runner, "-w", str(workspace))
    assert code == 2
    [(name, detail)] = failures(rows)
    assert name == "config"
    assert detail.startswith(f"{orchestrator}: TOML syntax error")
    assert detail.endswith(f"; fix: mixseek config validate -w {workspace} lists every problem")
    assert "credentials" not in [name for _, name, _ in rows]  # unknown without a config


def test_a_damaged_database_file(runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    db = workspace / "mixseek.db"
    db.write_bytes(b"not a database " * 1000)
    code, rows = doctor(runner, "-w", str(workspace))
    assert code == 2
    [(name, detail)] = failures(rows)
    assert name == "store"
    assert detail.startswith(f"{db}: ")
    assert detail.endswith(f"; fix: move it aside (mv {db} {db}.damaged); the next exec starts a new store")


def test_an_existing_store_is_readable_and_writable(
    runner: CliRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    runner.invoke(app, ["exec", "--dry-run", "hello", "-w", str(workspace)])  # creates the store
    code, rows = doctor(runner, "-w", str(workspace))
    assert code == 0
    assert ("OK", "store", f"{workspace / 'mixseek.db'}: readable and writable") in rows


def test_no_workspace_is_a_warning(runner: CliRunner) -> None:
    code, rows = doctor(runner)
    assert code == 0
    assert (
        "WARN",
        "workspace",
        "none given: configs, store and credentials not checked; fix: pass -w DIR or set MIXSEEK_WORKSPACE",
    ) in rows


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="the self-test runs only with llama-cpp-python"
)
def test_a_crashing_local_model_build(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + bytes(64))
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", f"local:{model}"]).exit_code == 0
    code = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    monkeypatch.setattr(selftest, "child_command", lambda model_path: [sys.executable, "-c", code])
    exit_code, rows = doctor(runner, "-w", str(ws))
    assert exit_code == 2
    [(name, detail)] = failures(rows)
    assert name == "local-model"
    assert detail.startswith(
        f"local:{model}: the embedded model crashed (SIGILL) in a self-test on {model}: "
    )
    assert f"reinstall it portably: {selftest.reinstall_command()}" in detail
