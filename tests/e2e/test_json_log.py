"""`mixseek exec --log-format json`: logs/mixseek.log is one JSON object a line, machine-readable
down to the fields of each retry, and credentials are redacted in it as in the text format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import models
from typer.testing import CliRunner

from fake_openai import fake_openai, write_fake_workspace
from mixseek.cli.app import app

KEY = "sk-test-JSONLOGSECRET42"


@pytest.fixture(autouse=True)
def _local_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake provider listens on 127.0.0.1: these tests may send it requests."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)


def run_exec(tmp_path: Path, **server_options: Any) -> tuple[int, str]:
    ws = write_fake_workspace(tmp_path / "ws", max_retries=2)
    with fake_openai(**server_options) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY}
        result = CliRunner().invoke(
            app, ["exec", "調べて", "-w", str(ws), "-f", "json", "--log-format", "json"], env=env
        )
    assert "Traceback" not in result.output
    return result.exit_code, (ws / "logs" / "mixseek.log").read_text(encoding="utf-8")


def test_each_retry_is_a_json_line_with_its_own_fields(tmp_path: Path) -> None:
    exit_code, log = run_exec(tmp_path, fail_first=2)
    assert exit_code == 0
    lines = [json.loads(line) for line in log.splitlines()]
    assert all({"at", "level", "logger", "message"} <= line.keys() for line in lines)
    retries = [line for line in lines if line["logger"] == "mixseek.llm.retry"]
    assert [(r["level"], r["model"], r["error"], r["retry"], r["max_retries"]) for r in retries] == [
        ("WARNING", "fake-gpt", "ModelRateLimitError", 1, 2),
        ("WARNING", "fake-gpt", "ModelRateLimitError", 2, 2),
    ]
    assert [r["delay_s"] for r in retries] == [0.0, 0.0]  # the provider's Retry-After: 0
    assert retries[0]["message"].startswith(
        "model fake-gpt: transient error (ModelRateLimitError), retry 1/2"
    )


def test_a_key_echoed_in_errors_is_redacted_in_the_json_log(tmp_path: Path) -> None:
    exit_code, log = run_exec(tmp_path, fail_always=True, echo_auth=True)
    assert exit_code != 0
    assert "JSONLOGSECRET" not in log
    for line in log.splitlines():
        json.loads(line)  # still one JSON object a line after redaction
