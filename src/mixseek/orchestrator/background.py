"""Store writes the round flow does not wait for.

A decision, or the mark that a round has started, need not be on disk before
the next model call: the store applies writes in the order they were made
(`storage._write_queue`), so whatever the next round stores implies these are
stored too, and a resume after a crash in between simply judges or starts
again. Waiting for them would put a database round trip (a file open, when
the store had released it) on every round's critical path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class BackgroundWrites:
    """Writes started now and awaited later; `settle` raises the first one that failed."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[Any]] = []

    async def start(self, write: Coroutine[Any, Any, Any]) -> None:
        """Start `write` and let it reach the store's queue before the caller goes on,
        so it is ordered before any write the caller makes next."""
        self._tasks.append(asyncio.ensure_future(write))
        await asyncio.sleep(0)

    async def settle(self) -> None:
        """Wait for every write; a write cancelled with the event loop is not an error here."""
        tasks, self._tasks = self._tasks, []
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, Exception):
                raise result
