"""Spans without credential values: the exporters mixseek sets up only see redacted spans.

pydantic-ai records each model call's prompts and answers, the response's `model` and `id`, and
the exception of a failed call (whose message may quote an error body that echoes the key) as
span attributes, events and status. `RedactingSpanExporter` applies the `Redactor` to a span's
name, attributes, events, links, status and resource before the real exporter (console, OTLP)
writes or sends it, so that one place covers whatever any instrumentation put there.

Imported only when mixseek builds an SDK provider (the OpenTelemetry SDK is optional).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import Link, Status

from mixseek.redaction import Redactor


def _attributes(attributes: Mapping[str, Any] | None, redactor: Redactor) -> dict[str, Any]:
    return cast(dict[str, Any], redactor.value(dict(attributes or {})))


def redacted_span(span: ReadableSpan, redactor: Redactor) -> ReadableSpan:
    """A copy of `span` with every known credential value replaced in each of its strings."""
    status = span.status
    if status.description:
        status = Status(status.status_code, redactor.text(status.description))
    return ReadableSpan(
        name=redactor.text(span.name),
        context=span.context,
        parent=span.parent,
        resource=Resource(_attributes(span.resource.attributes, redactor), span.resource.schema_url),
        attributes=_attributes(span.attributes, redactor),
        events=[
            Event(redactor.text(event.name), _attributes(event.attributes, redactor), event.timestamp)
            for event in span.events
        ],
        links=[Link(link.context, _attributes(link.attributes, redactor)) for link in span.links],
        kind=span.kind,
        status=status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class RedactingSpanExporter(SpanExporter):
    """Hands `inner` each span redacted (as it is when no credential is set)."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        redactor = Redactor()
        if redactor.active:
            spans = [redacted_span(span, redactor) for span in spans]
        return self.inner.export(spans)

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)
