"""Group commit for a workflow's store writes: results that arrive while one write runs share the next. Each
store activity costs the Temporal server ~10 ms of CPU; one writer coroutine per run writes what queued as one
activity, in order. Workflow code: only asyncio tasks and futures (deterministic)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Batcher(Generic[T]):
    """Writes items in order in batches of at most `max_size` (Temporal refuses an input over 2 MB)."""

    def __init__(
        self, write: Callable[[list[T]], Awaitable[None]], *, size: Callable[[T], int], max_size: int
    ) -> None:
        self._write = write
        self._size = size
        self._max_size = max_size
        self._queue: list[tuple[T, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def put(self, item: T) -> None:
        """Return once `item` is written, or raise that write's error (cancelled before: not written)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        await future

    async def idle(self) -> None:
        """Wait for the write under way, if any (a cancelled caller's batch may still be writing)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.wait([self._writer])

    async def _drain(self) -> None:
        while True:
            batch = self._take()
            if not batch:
                return
            try:
                await self._write([item for item, _ in batch])
            except asyncio.CancelledError:
                for _, future in batch + self._queue:
                    future.cancel()
                raise
            except Exception as exc:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
            else:
                for _, future in batch:
                    if not future.done():
                        future.set_result(None)

    def _take(self) -> list[tuple[T, asyncio.Future[None]]]:
        """The next batch, off the queue: the first items still wanted, up to `max_size`."""
        waiting = [(item, future) for item, future in self._queue if not future.done()]
        taken, total = 0, 0
        for item, _ in waiting:
            total += self._size(item)
            if taken and total > self._max_size:
                break
            taken += 1
        self._queue = waiting[taken:]
        return waiting[:taken]
