"""`--otel-content off`: every exported span keeps names, ids, counts, scores and timings, and no text.

The scripted models plant a tag in each kind of text (answers, evaluator comments, judgment reasoning, a
leader's tool arguments; the prompt and a failing team's error carry their own); with content on each tag
is in some span, with content off none is in any span's name, attributes, events or status.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

import mixseek.telemetry as telemetry
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

PROMPT = "課題 PROMPT-PLANT-1"
ARGUMENT_TAGS = {"comment": " COMMENT-PLANT-2", "reasoning": " REASON-PLANT-3", "task": " TOOLARG-PLANT-4"}
ANSWER_TAG = " ANSWER-PLANT-5"
ERROR = "beta leader is broken"  # the failing team's exception (scripted.py)
PLANTED = ("PROMPT-PLANT-1", *(t.strip() for t in ARGUMENT_TAGS.values()), ANSWER_TAG.strip(), ERROR)


@pytest.fixture
def exporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    monkeypatch.delenv("MIXSEEK_ORCHESTRATOR__TELEMETRY", raising=False)
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.configure_telemetry(provider)
    yield spans
    telemetry.include_content(True)
    telemetry.configure_telemetry("off")
    provider.shutdown()
    assert Agent._instrument_default is False


def planted(model: FunctionModel) -> FunctionModel:
    """`model` with a tag appended to each answer and to each tool call's text arguments."""

    async def function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert model.function is not None
        response = model.function(messages, info)
        response = await response if inspect.isawaitable(response) else response
        for part in response.parts:
            if isinstance(part, TextPart):
                part.content += ANSWER_TAG
            elif isinstance(part, ToolCallPart) and isinstance(part.args, dict):
                args = part.args
                args.update({k: args[k] + tag for k, tag in ARGUMENT_TAGS.items() if k in args})
        return response

    return FunctionModel(function, model_name=model.model_name)


def texts(span: ReadableSpan) -> str:
    """Every string a span exports: name, attributes, events, status."""
    parts: list[Any] = [span.name, dict(span.attributes or {}), span.status.description]
    parts += [[event.name, dict(event.attributes or {})] for event in span.events]
    return json.dumps(parts, ensure_ascii=False, default=str)


def run(ws: Path, *args: str) -> None:
    world = World(failing_teams={"beta"})
    models: dict[str, Model] = {
        name: planted(m) for name, m in world.models().items() if isinstance(m, FunctionModel)
    }
    with override_models(models):
        result = CliRunner().invoke(app, ["exec", PROMPT, "-w", str(ws), "-f", "json", *args])
    assert result.exit_code == 1, result.output  # beta fails, alpha completes


def numbers(spans: tuple[ReadableSpan, ...]) -> set[str]:
    """The numeric attribute keys of the spans (tokens, scores, rounds, timings are the spans' own)."""
    return {k for s in spans for k, v in (s.attributes or {}).items() if isinstance(v, int | float)}


@pytest.mark.parametrize("content", ["on", "off"])
def test_span_text_follows_otel_content(tmp_path: Path, exporter: InMemorySpanExporter, content: str) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2, max_retries=0)
    run(ws, "--otel-content", content)
    spans = exporter.get_finished_spans()
    exported = [texts(s) for s in spans]
    found = {tag for tag in PLANTED if any(tag in text for text in exported)}
    assert found == (set(PLANTED) if content == "on" else set())
    keys = numbers(spans)
    for key in ("mixseek.score", "mixseek.input_tokens", "mixseek.output_tokens", "mixseek.requests"):
        assert key in keys
    assert {"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} <= keys
    models = {s.attributes.get("gen_ai.request.model") for s in spans if s.attributes}
    assert {"leader-alpha", "member", "metric", "judgment"} <= models
    assert all(s.end_time and s.start_time and s.end_time >= s.start_time for s in spans)
    ids = {s.attributes.get("mixseek.execution_id") for s in spans if s.attributes}
    assert len(ids - {None}) == 1


def test_otel_content_is_checked(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    result = CliRunner().invoke(app, ["exec", PROMPT, "-w", str(ws), "--otel-content", "maybe"])
    assert result.exit_code == 2
    assert "--otel-content: must be on or off (got 'maybe')" in result.stderr
