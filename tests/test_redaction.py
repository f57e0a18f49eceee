"""Credential values are replaced by `[REDACTED:<VARIABLE>]` at each boundary where text leaves mixseek."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import duckdb
import pytest

from mixseek.errors import describe_exception
from mixseek.llm.credentials import CREDENTIAL_RULES
from mixseek.orchestrator.events import EventBus, LogLineSink, TeamRoundFinished
from mixseek.redaction import RedactingFormatter, Redactor, is_secret_name, redact
from mixseek.storage.aggregation_store import AggregationStore

KEY = "sk-test-SECRETVALUE123"
ADDRESS_PARTS = ("BASE_URL", "ENDPOINT", "REGION", "ACCOUNT")


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_every_credential_variable_of_every_provider_is_a_secret_and_addresses_are_not() -> None:
    names = {name for rule in CREDENTIAL_RULES.values() for requirement in rule for name in requirement}
    addresses = {name for name in names if any(part in name for part in ADDRESS_PARTS)}
    assert addresses  # OPENAI_BASE_URL, AZURE_OPENAI_ENDPOINT, AWS_REGION, ...
    assert [name for name in sorted(names - addresses) if not is_secret_name(name)] == []
    assert [name for name in sorted(addresses) if is_secret_name(name)] == []
    assert not is_secret_name("TOKENIZERS_PARALLELISM") and not is_secret_name("MAX_TOKENS")


def test_values_are_replaced_by_their_variable_and_short_values_are_left_alone() -> None:
    redactor = Redactor(
        {
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
            "ACME_TOKEN": "short",
            "PLUGIN_SECRET": f"{KEY}-and-more",
        }
    )
    text = f"Bearer {KEY}; other {KEY}-and-more; at http://127.0.0.1:8000/v1; short"
    assert redactor.text(text) == (
        "Bearer [REDACTED:OPENAI_API_KEY]; other [REDACTED:PLUGIN_SECRET]; at http://127.0.0.1:8000/v1; short"
    )
    assert redactor.value({"auth": [f"Bearer {KEY}", (1, KEY)], KEY: None}) == {
        "auth": ["Bearer [REDACTED:OPENAI_API_KEY]", (1, "[REDACTED:OPENAI_API_KEY]")],
        "[REDACTED:OPENAI_API_KEY]": None,
    }
    assert not Redactor({"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}).active


def test_each_redaction_sees_the_environment_as_it_is_then(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the process's environment holds is read afresh each time (a key set, changed or
    removed after the process started), though what it found is kept between calls."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert redact(f"Bearer {KEY}") == f"Bearer {KEY}"
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert redact(f"Bearer {KEY}") == "Bearer [REDACTED:OPENAI_API_KEY]"
    assert redact(f"Bearer {KEY}") == "Bearer [REDACTED:OPENAI_API_KEY]"
    monkeypatch.setenv("OPENAI_API_KEY", f"{KEY}-rotated")
    assert redact(f"{KEY}-rotated and {KEY}") == f"[REDACTED:OPENAI_API_KEY] and {KEY}"
    monkeypatch.setenv("ACME_SECRET", "zürich-geheimnis-1")  # not ASCII: decoded as os.environ does
    assert redact("at zürich-geheimnis-1") == "at [REDACTED:ACME_SECRET]"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert redact(f"{KEY}-rotated") == f"{KEY}-rotated"


@pytest.mark.usefixtures("key_in_env")
async def test_the_store_writes_no_credential(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    store = AggregationStore(db)
    await store.create_execution("e1", f"use {KEY}", {"headers": {"Authorization": f"Bearer {KEY}"}})
    await store.aclose()
    conn = duckdb.connect(str(db), read_only=True)
    try:
        query = "SELECT user_prompt, CAST(config AS VARCHAR) FROM executions"
        prompt, config = conn.execute(query).fetchone()
    finally:
        conn.close()
    assert prompt == "use [REDACTED:OPENAI_API_KEY]"
    assert config == '{"headers":{"Authorization":"Bearer [REDACTED:OPENAI_API_KEY]"}}'


@pytest.mark.usefixtures("key_in_env")
def test_log_lines_and_their_tracebacks_are_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(logging.Formatter("%(levelname)s %(message)s")))
    logger = logging.getLogger("mixseek.test_redaction")
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError(f"provider said: Bearer {KEY}")
        except RuntimeError:
            logger.exception("call failed with %s", KEY)
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert written.startswith("ERROR call failed with [REDACTED:OPENAI_API_KEY]\n")
    assert "RuntimeError: provider said: Bearer [REDACTED:OPENAI_API_KEY]" in written
    assert "SECRETVALUE" not in written


@pytest.mark.usefixtures("key_in_env")
def test_error_descriptions_and_events_are_redacted() -> None:
    assert describe_exception(ValueError(f"echo {KEY}")) == "ValueError: echo [REDACTED:OPENAI_API_KEY]"
    stream = io.StringIO()
    long_error = "x" * 100 + KEY  # a line cropped to 120 characters must not show part of the key
    EventBus([LogLineSink(stream)]).emit(
        TeamRoundFinished(execution_id="e1", team_id="t", round_number=1, status="failed", error=long_error)
    )
    assert "SECRET" not in stream.getvalue()
