"""`ExecutionRun`: one execution while it runs — its events as they happen, then its result."""

from __future__ import annotations

import asyncio

from mixseek.errors import InputError, RuntimeFailure
from mixseek.orchestrator.events import Event
from mixseek.orchestrator.models import ExecutionSummary


class ExecutionRun:
    """Async iterator over one execution's events (queued), raising what failed it; then `result`."""

    def __init__(self, execution_id: str) -> None:
        self.execution_id = execution_id
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()  # None: the end
        self._task: asyncio.Task[ExecutionSummary] | None = None

    def _start(self, task: asyncio.Task[ExecutionSummary]) -> None:
        self._task = task
        task.add_done_callback(lambda _: self._queue.put_nowait(None))

    def _push(self, event: Event) -> None:
        self._queue.put_nowait(event)

    def __aiter__(self) -> ExecutionRun:
        return self

    async def __anext__(self) -> Event:
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(item)  # ended for every later call too
            task = self._task
            error = task.exception() if task is not None and not task.cancelled() else None
            if error is not None:
                raise error
            raise StopAsyncIteration
        return item

    @property
    def done(self) -> bool:
        return self._task is not None and self._task.done()

    @property
    def result(self) -> ExecutionSummary:
        """The execution's summary; `InputError` before its end, `RuntimeFailure` if cancelled."""
        if self._task is None or not self._task.done():
            raise InputError(
                f"execution {self.execution_id} has not finished: read its events to the end first"
            )
        if self._task.cancelled():
            raise RuntimeFailure(
                f"execution {self.execution_id} was stopped before it finished (interrupted)"
            )
        return self._task.result()

    async def _close(self) -> None:
        """Cancel the execution if it still runs (it is then stored as interrupted) and wait for it."""
        task = self._task
        if task is None:
            return
        if not task.done():
            task.cancel()
        await asyncio.wait([task])
