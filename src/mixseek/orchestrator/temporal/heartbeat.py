"""Beats to Temporal while an activity runs: a process that dies (a worker, or the `mixseek exec`
serving the store) hands its activity to another within the workflow's heartbeat timeout, and a
cancelled activity learns of it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from temporalio import activity

HEARTBEAT_EVERY_SECONDS = 2.0


@contextlib.asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeat every HEARTBEAT_EVERY_SECONDS while the body runs (not a local activity)."""
    if activity.info().is_local:
        yield
        return

    async def beat() -> None:
        # the first beat only after a period: most team rounds end before one is due
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY_SECONDS)
            activity.heartbeat()

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
