"""Retrying is mixseek's alone: the provider SDK makes one HTTP attempt per mixseek attempt, so the
governor's rate limiter and `max_requests` budget see every request a provider receives."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pydantic_ai import Agent, models
from pydantic_ai.exceptions import ModelHTTPError
from typer.testing import CliRunner

from fake_openai import MODEL, fake_openai, write_fake_workspace
from mixseek.cli.app import app
from mixseek.llm import create_model, wrap_models
from mixseek.llm.governor import Budget, BudgetExceeded, Governor, ModelLimit
from mixseek.llm.retrying import RetryingModel, RetryTiming, retry_timing

QUICK = RetryTiming(base_delay=0.01, max_delay=0.05)


@pytest.fixture(autouse=True)
def _local_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake provider listens on 127.0.0.1: these tests may send it requests."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)


def _point_at(base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local")


@pytest.mark.parametrize("status", [429, 500])
async def test_a_call_that_always_fails_reaches_the_provider_once_per_attempt(
    status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_openai(fail_always=True, fail_status=status) as server:
        _point_at(server.base_url, monkeypatch)
        with retry_timing(QUICK):
            model = RetryingModel(create_model(MODEL, role="judgment"), max_retries=3)
        with pytest.raises(ModelHTTPError) as info:
            await Agent(model).run("hi")
        assert info.value.status_code == status
        assert server.count == 4  # 1 + mixseek's 3 retries; the SDK adds none


# model string, its SDK's module, the variables pointing it at the fake server ({url}: .../v1,
# {root}: without /v1); the server answers 429 to any path, whatever the wire format
PROVIDERS = [
    ("openai:fake-gpt", "openai", {"OPENAI_BASE_URL": "{url}", "OPENAI_API_KEY": "sk-test-local"}),
    ("ollama:fake", "openai", {"OLLAMA_BASE_URL": "{url}"}),
    ("vllm:fake", "openai", {"VLLM_BASE_URL": "{url}"}),
    ("anthropic:fake", "anthropic", {"ANTHROPIC_BASE_URL": "{root}", "ANTHROPIC_API_KEY": "sk-ant-local"}),
    ("groq:fake", "groq", {"GROQ_BASE_URL": "{root}", "GROQ_API_KEY": "gsk-local"}),
    ("cohere:fake", "cohere", {"CO_BASE_URL": "{root}", "CO_API_KEY": "co-local"}),
]


@pytest.mark.parametrize(("model_string", "sdk", "env"), PROVIDERS, ids=[p[0] for p in PROVIDERS])
async def test_every_provider_sdk_leaves_retrying_to_mixseek(
    model_string: str, sdk: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(sdk)
    with fake_openai(fail_always=True) as server:
        root = server.base_url.removesuffix("/v1")
        for name, value in env.items():
            monkeypatch.setenv(name, value.format(url=server.base_url, root=root))
        with retry_timing(QUICK):
            model = RetryingModel(create_model(model_string, role="judgment"), max_retries=2)
        with pytest.raises(ModelHTTPError):
            await Agent(model).run("hi")
        assert server.count == 3


async def test_the_governor_counts_and_rate_limits_every_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    governor = Governor(Budget(max_requests=3), ModelLimit(max_concurrent=1, requests_per_minute=100))
    with fake_openai(fail_always=True) as server:
        _point_at(server.base_url, monkeypatch)
        with wrap_models(governor.wrap), retry_timing(QUICK):
            model = RetryingModel(create_model(MODEL, role="judgment"), max_retries=5)
        with pytest.raises(BudgetExceeded) as info:
            await Agent(model).run("hi")
        assert str(info.value) == "budget max_requests = 3 reached (3 spent)"
        assert server.count == 3
    assert governor.ledger.total.requests == 3
    assert governor.limiter(MODEL).started == 3  # the per-minute limiter saw each attempt


def test_member_command_makes_one_request_per_attempt(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    member = tmp_path / "m.toml"
    member.write_text(
        f"""
[member]
agent_name = "analyst"
agent_type = "plain"
tool_description = "調べる"
model = "{MODEL}"
max_retries = 3
""",
        encoding="utf-8",
    )
    with fake_openai(fail_always=True) as server:
        _point_at(server.base_url, monkeypatch)
        result = runner.invoke(app, ["member", "調べて", "-c", str(member)])
        assert server.count == 4
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def _stored_requests(ws: Path) -> int:
    conn = duckdb.connect(str(ws / "mixseek.db"), read_only=True)
    try:
        row = conn.execute("SELECT sum(requests) FROM model_calls").fetchone()
    finally:
        conn.close()
    assert row is not None
    return int(row[0])


def test_exec_stores_every_request_the_provider_received(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = write_fake_workspace(tmp_path / "ws")
    with fake_openai(fail_first=2) as server:
        _point_at(server.base_url, monkeypatch)
        result = runner.invoke(app, ["exec", "調べて", "-w", str(ws), "-f", "json"])
        received = server.count
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    # leader: 2 rate-limited attempts, a delegation, an answer; member 1; metric 1
    assert received == 6
    assert _stored_requests(ws) == received
    assert summary["usage"]["requests"] == received


def test_exec_request_budget_counts_rate_limited_attempts(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = write_fake_workspace(tmp_path / "ws", extra="max_requests = 3")
    with fake_openai(fail_first=2) as server:
        _point_at(server.base_url, monkeypatch)
        result = runner.invoke(app, ["exec", "調べて", "-w", str(ws), "-f", "json"])
        received = server.count
    assert "Traceback" not in result.output
    summary = json.loads(result.stdout)
    assert summary["stop_detail"] == "budget max_requests = 3 reached (3 spent)"
    assert received == 3
    assert _stored_requests(ws) == 3
