"""Live updates of an open execution page (`GET /executions/{id}/stream`, server-sent events): one read-only
progress read per `live_poll_seconds`; on a change, each section rendered once for all followers. The progress
is the event id (`Last-Event-ID` gets only what changed); a comment every `KEEPALIVE_SECONDS` keeps proxies;
`end` follows the last state; `streams_closing` ends streams with the server (uvicorn waits for them)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

from markupsafe import escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from mixseek.report import formatting
from mixseek.runs import UnknownExecution
from mixseek.storage.errors import StoreBusyError
from mixseek.storage.views import ExecutionProgress
from mixseek.ui.pages_execution import Rendering, Renderings, current_rendering, render_header, renderings
from mixseek.ui.reads import ui_settings

logger = logging.getLogger(__name__)

STREAM_SECONDS: float | None = None
"""How long one stream lasts at most before the browser reconnects; None: as long as the execution
runs (a shorter bound only makes the browser reconnect, and report each time as an error)."""
RECONNECT_MS = 2000
"""How soon the browser reconnects to a stream that ended under a running execution (the SSE
`retry` field): only after a failure, so not at once, and not every few milliseconds while the
dashboard is down."""
KEEPALIVE_SECONDS = 15.0
"""How often a stream sends a comment line (which the browser ignores), updates or not."""
KEEPALIVE = ": keep-alive\n\n"
END_EVENT = "end"
DURATION_EVENT = "duration"


def sse_event(name: str, data: str, event_id: str | None = None) -> str:
    """One server-sent event, each line of `data` a `data:` field of its own (a line break would end it),
    by string replacements (an update of a large execution is thousands of lines)."""
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
    stream_seconds: float | None = STREAM_SECONDS,
    closing: asyncio.Event | None = None,
) -> AsyncIterator[str]:
    """One page's events since `last_event_id`, until the execution ends, time runs out or `closing`."""
    yield f"retry: {RECONNECT_MS}\n\n"
    seen = last_event_id
    duration: str | None = None  # as the page shows it (after a full update, or a duration event)
    started = time.monotonic()
    deadline = None if stream_seconds is None else started + stream_seconds
    keepalive = started + KEEPALIVE_SECONDS
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
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return
        if now >= keepalive:
            keepalive = now + KEEPALIVE_SECONDS
            yield KEEPALIVE
        if await _closed_within(closing, poll_seconds):
            return


async def _closed_within(closing: asyncio.Event | None, seconds: float) -> bool:
    """Wait `seconds`, or less if `closing` is set meanwhile: whether it is."""
    if closing is None:
        await asyncio.sleep(seconds)
        return False
    try:
        await asyncio.wait_for(closing.wait(), seconds)
    except TimeoutError:
        return False
    return True


def streams_closing(app: Starlette) -> asyncio.Event:
    """The event that tells `app`'s live streams to end: its server is stopping."""
    state = app.state
    if not hasattr(state, "streams_closing"):
        state.streams_closing = asyncio.Event()
    return cast(asyncio.Event, state.streams_closing)


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
        closing=streams_closing(request.app),
    )
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(events, media_type="text/event-stream", headers=headers)


routes: list[BaseRoute] = [
    Route("/executions/{execution_id}/stream", execution_stream, methods=["GET"]),
]
