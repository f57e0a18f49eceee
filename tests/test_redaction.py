"""Credential values are replaced by `[REDACTED:<VARIABLE>]` at each boundary where text leaves mixseek."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

import duckdb
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel
from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import ModelResponse, ToolCallPart

from fake_openai import encodings
from mixseek.errors import describe_exception
from mixseek.llm.credentials import CREDENTIAL_RULES
from mixseek.llm.redacting import redact_response
from mixseek.orchestrator.events import EventBus, LogLineSink, TeamRoundFinished
from mixseek.redaction import RedactingFormatter, Redactor, is_secret_name, redact
from mixseek.report.transcript import read_transcript
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.telemetry_redaction import RedactingSpanExporter

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


# -- encodings -------------------------------------------------------------------------------

PASSWORD = 'p"a\\ss/w0rd!<&>x'
TOKEN = "пароль-秘密-1234567"
ENCODED = {"MY_DB_PASSWORD": PASSWORD, "APP_SECRET_TOKEN": TOKEN}


def every_form(value: str) -> dict[str, str]:
    """`encodings` (the fake provider's), their variants in the other hex case, and each form as
    it stands in a JSON string inside another JSON document."""
    forms = encodings(value)
    forms["u-escaped upper"] = re.sub(
        r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), forms["u-escaped"]
    )
    forms["percent lower"] = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), forms["percent"])
    for kind, form in list(forms.items()):
        forms[f"{kind} in JSON"] = json.dumps(form)[1:-1]
        forms[f"{kind} in a repr"] = repr(form)[1:-1]
    return forms


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_each_encoding_of_a_value_is_redacted(name: str) -> None:
    redactor = Redactor(ENCODED)
    for kind, form in every_form(ENCODED[name]).items():
        assert redactor.text(f"<{form}>") == f"<[REDACTED:{name}]>", kind


def test_encoded_values_are_found_where_they_are_stored() -> None:
    """As a JSON column, a repr-escaped error, a URL and tool-call arguments hold them."""
    redactor = Redactor(ENCODED)
    texts = [
        json.dumps({"comment": f"the password is {PASSWORD}"}),
        str(RuntimeError({"error": {"message": f"echo {PASSWORD} {TOKEN}"}})),
        f"https://example.org/?p={quote_plus(PASSWORD)}&t={quote(TOKEN, safe='')}",
        json.dumps({"args": json.dumps({"query": TOKEN})}),
    ]
    for text in texts:
        redacted = redactor.text(text)
        assert "w0rd" not in redacted and "1234567" not in redacted, text
        assert "[REDACTED:" in redacted
    assert json.loads(redactor.text(texts[0])) == {"comment": "the password is [REDACTED:MY_DB_PASSWORD]"}


def test_redacting_structures_copies_only_what_changed() -> None:
    @dataclasses.dataclass(frozen=True)
    class Part:
        text: str
        count: int = 0

    class Model(BaseModel):
        parts: list[Part]
        note: str

    redactor = Redactor(ENCODED)
    clean = Model(parts=[Part("a")], note="b")
    assert redactor.value(clean) is clean
    echoed = Model(parts=[Part("a"), Part(f"x {json.dumps(TOKEN)}", 2)], note=PASSWORD)
    assert redactor.value(echoed) == Model(
        parts=[Part("a"), Part('x "[REDACTED:APP_SECRET_TOKEN]"', 2)], note="[REDACTED:MY_DB_PASSWORD]"
    )


def test_a_response_has_no_credential_in_any_of_its_fields() -> None:
    """The key a provider returns as the model's name or the answer's id, a token its tool-call
    arguments carry `\\u`-escaped."""
    response = ModelResponse(
        parts=[ToolCallPart("final_result", json.dumps({"answer": TOKEN}), tool_call_id=KEY)],
        model_name=KEY,
        provider_response_id=KEY,
        provider_details={"echo": PASSWORD},
    )
    redacted = redact_response(response, Redactor({"OPENAI_API_KEY": KEY, **ENCODED}))
    assert (redacted.model_name, redacted.provider_response_id) == ("[REDACTED:OPENAI_API_KEY]",) * 2
    (part,) = redacted.parts
    assert isinstance(part, ToolCallPart)
    assert part.args_as_dict() == {"answer": "[REDACTED:APP_SECRET_TOKEN]"}
    assert part.tool_call_id == "[REDACTED:OPENAI_API_KEY]"
    assert redacted.provider_details == {"echo": "[REDACTED:MY_DB_PASSWORD]"}


def test_spans_are_exported_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"OPENAI_API_KEY": KEY, **ENCODED}.items():
        monkeypatch.setenv(name, value)
    exported = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(RedactingSpanExporter(exported)))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span(f"chat {KEY}", attributes={"gen_ai.response.model": KEY}) as span:
        span.set_attribute("gen_ai.output.messages", json.dumps([{"content": f"{PASSWORD} {TOKEN}"}]))
        span.set_attribute("tags", [KEY, "ok"])
        span.add_event("echo", {"text": repr(PASSWORD)})
        span.set_status(trace.StatusCode.ERROR, f"failed: {quote(TOKEN)}")
    (done,) = exported.get_finished_spans()
    written = done.to_json()
    assert "SECRETVALUE" not in written and "w0rd" not in written and "1234567" not in written
    assert (
        done.attributes is not None
        and done.attributes["gen_ai.response.model"] == "[REDACTED:OPENAI_API_KEY]"
    )
    assert done.attributes["tags"] == ("[REDACTED:OPENAI_API_KEY]", "ok")
    assert done.name == "chat [REDACTED:OPENAI_API_KEY]"
    assert done.status.description == "failed: [REDACTED:APP_SECRET_TOKEN]"


def test_a_transcript_is_redacted_after_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A history stored by a version that looked for raw values only: the tool-call arguments
    hold the token `\\u`-escaped, which the transcript shows decoded."""
    monkeypatch.setenv("APP_SECRET_TOKEN", TOKEN)
    history = ModelMessagesTypeAdapter.dump_json(
        [ModelResponse(parts=[ToolCallPart("final_result", json.dumps({"answer": TOKEN}))])]
    ).decode()
    assert TOKEN not in history and "\\\\u043f" in history  # escaped twice, as stored
    (message,) = read_transcript(history).messages
    (part,) = message.parts
    assert part.body == '{\n  "answer": "[REDACTED:APP_SECRET_TOKEN]"\n}'


async def test_a_read_only_store_reads_no_credential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written while the credentials were not set (or by a version that missed an
    encoding): what a read-only store reads of it — `runs show`, the dashboard — has none."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db = tmp_path / "mixseek.db"
    store = AggregationStore(db)
    config = {"echo": f"{PASSWORD} {TOKEN}", "headers": [f"Bearer {KEY}"]}
    await store.create_execution("e1", f"use {json.dumps(TOKEN)}", config)
    await store.aclose()
    for name, value in {"OPENAI_API_KEY": KEY, **ENCODED}.items():
        monkeypatch.setenv(name, value)
    async with AggregationStore(db, read_only=True) as reader:
        record = await reader.get_execution("e1")
    assert record is not None
    assert record.user_prompt == 'use "[REDACTED:APP_SECRET_TOKEN]"'
    assert record.config == {
        "echo": "[REDACTED:MY_DB_PASSWORD] [REDACTED:APP_SECRET_TOKEN]",
        "headers": ["Bearer [REDACTED:OPENAI_API_KEY]"],
    }


def test_a_secret_from_undecodable_environment_bytes_is_found_in_each_form() -> None:
    """Linux lets a variable hold bytes that are not UTF-8; Python gives them as surrogates. Building
    the encoded forms of such a value must not fail (it made every printed line a traceback)."""
    value = "abc\udce9defghijkl"
    redactor = Redactor({"APP_SECRET_TOKEN": value})
    marker = "[REDACTED:APP_SECRET_TOKEN]"
    assert redactor.text(f"raw {value}") == f"raw {marker}"
    assert redactor.text("sent abc%E9defghijkl") == f"sent {marker}"
