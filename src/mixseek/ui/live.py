"""Live updates of an open execution page: `GET /executions/{id}/stream`, server-sent events.

Every `live_poll_seconds` the stream opens the store read-only, reads the execution's progress (a
few counts and checksums) and closes it again, so an execution writing in another process is
never locked out for longer than that one read. Only when the progress changed does it read the
execution's outline in the same snapshot, render it (once for all the pages that follow the
execution: `pages_execution.current_rendering`) and send every section of the page as the event
of its name, which the page's htmx SSE extension swaps in.

Each update carries the progress as its event id. A stream lasts `STREAM_SECONDS` at most, then
ends; the browser reconnects at once (`retry`) and sends the id of the last update it got
(`Last-Event-ID`), so the new stream sends nothing until the next change. Short streams are what
let the server stop promptly (uvicorn waits for open responses, and cannot tell a stream it is
stopping) and what ends the stream of a browser that went away.

While the execution runs, its duration grows though its rows may not change for minutes (a long
round): between updates the stream sends the duration alone, as the `duration` event, whenever its
text changes.

Once the execution has ended (completed, failed, interrupted: its process gone), the stream sends
that last state and an `end` event, which makes the page close it (`sse-close="end"`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

from markupsafe import escape
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from mixseek.report import formatting
from mixseek.storage.errors import StoreBusyError
from mixseek.storage.views import ExecutionProgress
from mixseek.ui.pages_execution import Rendering, Renderings, current_rendering, render_header, renderings
from mixseek.ui.reads import UnknownExecution, ui_settings

logger = logging.getLogger(__name__)

STREAM_SECONDS = 5.0
"""How long one stream lasts before the browser reconnects (and how long a stopping server waits
for the streams open)."""
RECONNECT_MS = 100
"""How soon the browser reconnects after a stream ended (the SSE `retry` field)."""
END_EVENT = "end"
DURATION_EVENT = "duration"


def sse_event(name: str, data: str, event_id: str | None = None) -> str:
    """One server-sent event. A line break (CRLF, CR or LF) would end a `data:` field, so each line
    of `data` gets one of its own (the browser joins them with newlines again). String
    replacements rather than a split: an update of a large execution is thousands of lines."""
    text = str(data)  # plain str methods: a Markup's would escape their arguments
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    event_id_line = f"id: {event_id}\n" if event_id is not None else ""
    return "".join(("event: ", name, "\ndata: ", text.replace("\n", "\ndata: "), "\n", event_id_line, "\n"))


def progress_id(progress: ExecutionProgress) -> str:
    """The event id of an update: a digest of the progress it shows."""
    return hashlib.sha256(progress.model_dump_json().encode()).hexdigest()[:24]


async def updates(
    db: Path,
    execution_id: str,
    kept: Renderings,
    *,
    poll_seconds: float,
    csrf_token: str,
    first: Rendering | None = None,
    last_event_id: str | None = None,
    stream_seconds: float = STREAM_SECONDS,
) -> AsyncIterator[str]:
    """The events of one stream of an open page: each update since `last_event_id` (all of the
    page's sections at once, the last with the update's id), from `first` (if the caller has
    read it already) on, until the execution has ended or `stream_seconds` have passed."""
    yield f"retry: {RECONNECT_MS}\n\n"
    seen = last_event_id
    duration: str | None = None  # as the page shows it (after a full update, or a duration event)
    deadline = time.monotonic() + stream_seconds
    while True:
        try:
            rendering = first if first is not None else await current_rendering(db, execution_id, kept)
            first = None
        except StoreBusyError as exc:  # the writer kept the file a while: look again next time
            logger.info("live update of %s skipped: %s", execution_id, exc)
        else:
            if rendering is None:  # gone (another store file now, or deleted)
                yield sse_event(END_EVENT, "gone")
                return
            event_id = progress_id(rendering.progress)
            view = rendering.view
            shown = formatting.duration(view.duration_seconds)
            if event_id != seen:
                seen, duration = event_id, shown
                sections = [("header", render_header(view, csrf_token)), *rendering.sections.items()]
                yield "".join(
                    sse_event(name, html, event_id if i == len(sections) - 1 else None)
                    for i, (name, html) in enumerate(sections)
                )
            elif view.status == "running" and shown != duration:
                duration = shown
                yield sse_event(DURATION_EVENT, str(escape(shown)))
            if view.status != "running":
                yield sse_event(END_EVENT, view.status)
                return
        if time.monotonic() >= deadline:
            return
        await asyncio.sleep(poll_seconds)


async def execution_stream(request: Request) -> Response:
    """`/executions/{execution_id}/stream`: a 404 page for an id the store does not hold."""
    settings = ui_settings(request)
    execution_id = request.path_params["execution_id"]
    kept = renderings(request)
    first = await current_rendering(settings.db_path, execution_id, kept)
    if first is None:
        raise UnknownExecution(f"no execution '{execution_id}' in {settings.db_path}")
    events = updates(
        settings.db_path,
        execution_id,
        kept,
        poll_seconds=settings.live_poll_seconds,
        csrf_token=request.scope.get("mixseek.csrf_token", ""),
        first=first,
        last_event_id=request.headers.get("last-event-id"),
        stream_seconds=STREAM_SECONDS,
    )
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(events, media_type="text/event-stream", headers=headers)


routes: list[BaseRoute] = [
    Route("/executions/{execution_id}/stream", execution_stream, methods=["GET"]),
]
