"""Spans without credential values (a provider's error may echo the key): mixseek's exporters see each span
redacted, whatever instrumentation wrote it. Imported only with the (optional) OpenTelemetry SDK."""

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
