"""OpenTelemetry spans for an execution's work (`span`): off unless switched on, and free when off.

Off ignores an application's global provider too (prompts must not flow to its traces because mixseek
was imported); hand one over with `configure_telemetry(provider)`. The SDK loads only when asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

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


class Usage(Protocol):
    """Token counts as pydantic-ai's `RunUsage` and the store's `UsageTotals` carry them."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def requests(self) -> int: ...


@dataclass(frozen=True)
class _Telemetry:
    """Where mixseek's spans go now; `choice` is the mode or the provider it was configured with."""

    choice: object
    tracer: trace.Tracer | None
    flush: Callable[[], object] | None = None
    close: Callable[[], object] | None = None
    instruments_models: bool = False


_OFF = _Telemetry("off", None)
_current = _OFF


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
    return tracer.start_as_current_span(name, context=context, attributes=_named(attributes))


def record(span: trace.Span, **attributes: AttributeValue | None) -> None:
    """Add `mixseek.<key>` attributes to `span` (what is known once its work is done)."""
    if span.is_recording():
        span.set_attributes(_named(attributes))


def failed(span: trace.Span, message: str | None) -> None:
    """Mark `span` as an error: its work failed and says so in a result rather than by raising."""
    if span.is_recording():
        span.set_status(trace.StatusCode.ERROR, message)


def usage(counts: Usage) -> dict[str, AttributeValue | None]:
    """Token attributes for `record(span, **usage(...))`."""
    return {
        "input_tokens": counts.input_tokens,
        "output_tokens": counts.output_tokens,
        "requests": counts.requests,
    }


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
    """Where mixseek's and pydantic-ai's spans go for this process: "off", "console" (stderr),
    "otlp" (the `OTEL_*` variables), "logfire", or an application's `TracerProvider`. A missing
    package is a `ConfigError` naming `source` and `key` and what to install."""
    global _current
    if choice == _current.choice:
        return
    if isinstance(choice, str) and choice not in TELEMETRY_MODES:
        raise ConfigError(source, key, f"'{choice}' is not one of {', '.join(TELEMETRY_MODES)}")
    new = _build(choice, source, key)
    old, _current = _current, new
    if old.close is not None:
        old.close()
    if old.instruments_models and not new.instruments_models:
        _instrument_models(False)


def _build(choice: TelemetryMode | trace.TracerProvider, source: str | None, key: str | None) -> _Telemetry:
    if choice == "off":
        return _OFF
    if choice == "logfire":
        return _logfire(source, key)
    if isinstance(choice, trace.TracerProvider):
        _instrument_models(choice)
        return _Telemetry(
            choice,
            choice.get_tracer(SERVICE_NAME),
            flush=getattr(choice, "force_flush", None),
            instruments_models=True,
        )
    return _sdk(choice, source, key)


def _sdk(choice: str, source: str | None, key: str | None) -> _Telemetry:
    """An SDK provider of mixseek's own (not installed globally), its exporter seeing redacted spans."""
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME as SERVICE_NAME_KEY
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )

        from mixseek.telemetry_redaction import RedactingSpanExporter

        processor: SpanProcessor
        if choice == "console":
            processor = SimpleSpanProcessor(RedactingSpanExporter(ConsoleSpanExporter(out=sys.stderr)))
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            processor = BatchSpanProcessor(RedactingSpanExporter(OTLPSpanExporter()))
    except ImportError:
        needs = "the OpenTelemetry SDK" + (" and OTLP exporter" if choice == "otlp" else "")
        raise ConfigError(source, key, f"{choice} needs {needs}: {INSTALL_OTEL}") from None
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME_KEY, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME_KEY: SERVICE_NAME}))  # OTEL_SERVICE_NAME wins
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(processor)
    _instrument_models(provider)
    return _Telemetry(
        choice,
        provider.get_tracer(SERVICE_NAME),
        flush=provider.force_flush,
        close=provider.shutdown,
        instruments_models=True,
    )


def _logfire(source: str | None, key: str | None) -> _Telemetry:
    try:
        logfire = importlib.import_module("logfire")
    except ImportError:
        raise ConfigError(source, key, f"logfire needs the logfire package: {INSTALL_LOGFIRE}") from None
    logfire.configure()
    logfire.instrument_pydantic_ai()
    return _Telemetry(
        "logfire", trace.get_tracer(SERVICE_NAME), flush=logfire.force_flush, instruments_models=True
    )


def _instrument_models(provider: trace.TracerProvider | Literal[False]) -> None:
    """pydantic-ai's spans for every agent's runs, model requests and tool calls, into `provider`."""
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings

    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider) if provider else False)
