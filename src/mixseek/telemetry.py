"""OpenTelemetry spans for an execution's work (`span`), free when off; off ignores a global provider too."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Literal, get_args

from opentelemetry import trace
from opentelemetry.util.types import AttributeValue

from mixseek.config.orchestrator import TelemetryMode
from mixseek.errors import ConfigError

TELEMETRY_MODES: tuple[str, ...] = get_args(TelemetryMode)
INSTALL_OTEL = "pip install 'opentelemetry-sdk>=1.30' 'opentelemetry-exporter-otlp-proto-http>=1.30'"
INSTALL_LOGFIRE = "pip install logfire"
SERVICE_NAME = "mixseek"

# What `span` returns while off: one shared no-op context, no span object, no context switch.
_NOTHING = contextlib.nullcontext(trace.INVALID_SPAN)


@dataclass(frozen=True)
class _Telemetry:
    """Where mixseek's spans go now; `choice` is the mode or the provider it was configured with."""

    choice: object
    tracer: trace.Tracer | None
    flush: Callable[[], object] | None = None
    close: Callable[[], object] | None = None
    instrument: Callable[[bool], object] | None = None  # pydantic-ai's spans, with content or without


_OFF = _Telemetry("off", None)
_current = _OFF
_content = True  # whether spans may carry text: prompts, answers, comments, tool arguments, errors


def enabled() -> bool:
    return _current.tracer is not None


def span(
    name: str, *, parent: trace.Span | None = None, **attributes: AttributeValue | None
) -> AbstractContextManager[trace.Span]:
    """A span with `mixseek.<key>` attributes, under `parent` if given (it may have ended); off: none."""
    tracer = _current.tracer
    if tracer is None:
        return _NOTHING
    context = None
    if parent is not None and parent.get_span_context().is_valid:
        context = trace.set_span_in_context(parent)
    return tracer.start_as_current_span(  # an exception's message is text too
        name,
        context=context,
        attributes=_named(attributes),
        record_exception=_content,
        set_status_on_exception=_content,
    )


def record(span: trace.Span, **attributes: AttributeValue | None) -> None:
    """Add `mixseek.<key>` attributes to `span` (what is known once its work is done; `error` is text)."""
    if span.is_recording():
        span.set_attributes(_named(attributes if _content else {**attributes, "error": None}))


def failed(span: trace.Span, message: str | None) -> None:
    """Mark `span` as an error: its work failed and says so in a result rather than by raising."""
    if span.is_recording():
        span.set_status(trace.StatusCode.ERROR, message if _content else None)


def include_content(on: bool) -> None:
    """Whether spans (mixseek's and pydantic-ai's) carry text, or only names, ids, counts and timings."""
    global _content
    _content = on
    if _current.instrument is not None:
        _current.instrument(on)


def usage(counts: object) -> dict[str, AttributeValue | None]:
    """Token attributes (of a `RunUsage` or `UsageTotals`) for `record(span, **usage(...))`."""
    return {key: getattr(counts, key) for key in ("input_tokens", "output_tokens", "requests")}


def _named(attributes: Mapping[str, AttributeValue | None]) -> dict[str, AttributeValue]:
    return {f"mixseek.{key}": value for key, value in attributes.items() if value is not None}


async def flush() -> None:
    """Export the spans still buffered (the end of an execution), off the event loop."""
    flush = _current.flush
    if flush is not None:
        await asyncio.to_thread(flush)


def configure_telemetry(
    choice: TelemetryMode | trace.TracerProvider, *, source: str | None = None, key: str | None = None
) -> None:
    """Where this process's spans go: "off", "console", "otlp", "logfire", or an application's provider."""
    global _current
    if choice == _current.choice:
        return
    if isinstance(choice, str) and choice not in TELEMETRY_MODES:
        raise ConfigError(source, key, f"'{choice}' is not one of {', '.join(TELEMETRY_MODES)}")
    new = _build(choice, source, key)
    old, _current = _current, new
    if old.close is not None:
        old.close()
    if new.instrument is not None:
        new.instrument(_content)
    elif old.instrument is not None:
        _instrument_models(False)


def _build(choice: TelemetryMode | trace.TracerProvider, source: str | None, key: str | None) -> _Telemetry:
    if choice == "off":
        return _OFF
    if choice == "logfire":
        return _logfire(source, key)
    if isinstance(choice, trace.TracerProvider):
        return _Telemetry(
            choice,
            choice.get_tracer(SERVICE_NAME),
            flush=getattr(choice, "force_flush", None),
            instrument=partial(_instrument_models, choice),
        )
    return _sdk(choice, source, key)


def _sdk(choice: str, source: str | None, key: str | None) -> _Telemetry:
    """An SDK provider of mixseek's own (not installed globally), its exporter seeing redacted spans."""
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME as SERVICE_NAME_KEY
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider, export

        from mixseek.telemetry_redaction import RedactingSpanExporter

        processor: SpanProcessor
        if choice == "console":
            processor = export.SimpleSpanProcessor(
                RedactingSpanExporter(export.ConsoleSpanExporter(out=sys.stderr))
            )
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            processor = export.BatchSpanProcessor(RedactingSpanExporter(OTLPSpanExporter()))
    except ImportError:
        needs = "the OpenTelemetry SDK" + (" and OTLP exporter" if choice == "otlp" else "")
        raise ConfigError(source, key, f"{choice} needs {needs}: {INSTALL_OTEL}") from None
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME_KEY, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME_KEY: SERVICE_NAME}))  # OTEL_SERVICE_NAME wins
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(processor)
    return _Telemetry(
        choice,
        provider.get_tracer(SERVICE_NAME),
        flush=provider.force_flush,
        close=provider.shutdown,
        instrument=partial(_instrument_models, provider),
    )


def _logfire(source: str | None, key: str | None) -> _Telemetry:
    try:
        logfire = importlib.import_module("logfire")
    except ImportError:
        raise ConfigError(source, key, f"logfire needs the logfire package: {INSTALL_LOGFIRE}") from None
    logfire.configure()
    return _Telemetry(
        "logfire",
        trace.get_tracer(SERVICE_NAME),
        flush=logfire.force_flush,
        instrument=lambda content: logfire.instrument_pydantic_ai(
            **({} if content else {"include_content": False})
        ),
    )


def _instrument_models(provider: trace.TracerProvider | Literal[False], content: bool = True) -> None:
    """pydantic-ai's spans for every agent's runs, model requests and tool calls, into `provider`."""
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings

    Agent.instrument_all(
        InstrumentationSettings(tracer_provider=provider, include_content=content) if provider else False
    )
