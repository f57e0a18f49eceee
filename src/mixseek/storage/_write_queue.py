"""Group commit: writes that arrive while one is running share the next transaction.

Why: with many teams, their rounds end within milliseconds of each other
and each save is eight statements plus a commit (about 19 ms in DuckDB);
one after another on the single connection they queue for seconds. Here a
write waits for the transaction in progress, then every write that queued
meanwhile runs in one transaction, and neighbours of the same kind (say 40
saves in a row) become one multi-row statement each (`bench/orchestration.py`
prints the store's time per operation).

Each caller still gets its own result or its own error: when the shared
transaction fails, it is rolled back and every write of the batch runs again
alone, so a bad row fails only the call that brought it. Writes run in the
order they were submitted; a caller that has awaited its write knows it is
committed before anything it does next.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import duckdb

P = TypeVar("P")
Conn = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class WriteKind(Generic[P]):
    """How to run consecutive writes of one kind: `write` returns one outcome per
    payload (a value, or an exception only that caller sees); `key` says which
    payloads may not share one multi-row statement (two saves of one round)."""

    name: str
    write: Callable[[Conn, Sequence[P]], list[Any]]
    key: Callable[[P], object] | None = None


@dataclass
class _Request:
    kind: WriteKind[Any]
    payload: Any
    future: asyncio.Future[Any]


@dataclass
class WriteQueue:
    """Batches writes for one store. `execute(work)` runs `work(conn)` in one
    transaction (in a worker thread, retrying on another process's lock)."""

    execute: Callable[[Callable[[Conn], list[Any]]], Awaitable[list[Any]]]
    _pending: list[_Request] = field(default_factory=list)
    _flusher: asyncio.Task[None] | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def submit(self, kind: WriteKind[P], payload: P) -> Any:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (each asyncio.run) starts afresh
            self._loop, self._pending, self._flusher = loop, [], None
        request = _Request(kind, payload, loop.create_future())
        self._pending.append(request)
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush(), name="mixseek-store-writer")
        return await request.future

    async def _flush(self) -> None:
        batch: list[_Request] = []
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                await self._write(batch)
        except BaseException:  # cancelled with the event loop: so are the writers waiting
            for request in [*batch, *self._pending]:
                request.future.cancel()
            self._pending = []
            raise

    async def _write(self, batch: list[_Request]) -> None:
        try:
            outcomes = await self.execute(lambda conn: _run_groups(conn, batch))
        except Exception as exc:
            if len(batch) == 1:
                _settle(batch[0].future, exc)
                return
            for request in batch:  # one of them is bad: find out which, each on its own
                await self._run_alone(request)
            return
        for request, outcome in zip(batch, outcomes, strict=True):
            _settle(request.future, outcome)

    async def _run_alone(self, request: _Request) -> None:
        try:
            (outcome,) = await self.execute(lambda conn: _run_groups(conn, [request]))
        except Exception as exc:
            outcome = exc
        _settle(request.future, outcome)


def _run_groups(conn: Conn, batch: Sequence[_Request]) -> list[Any]:
    """Outcomes of `batch` in order; consecutive requests of one kind run together."""
    outcomes: list[Any] = []
    for kind, payloads in _groups(batch):
        results = kind.write(conn, payloads)
        if len(results) != len(payloads):
            raise RuntimeError(f"{kind.name}: {len(results)} outcomes for {len(payloads)} writes")
        outcomes.extend(results)
    return outcomes


def _groups(batch: Sequence[_Request]) -> list[tuple[WriteKind[Any], list[Any]]]:
    groups: list[tuple[WriteKind[Any], list[Any]]] = []
    keys: set[object] = set()
    for request in batch:
        kind = request.kind
        key = kind.key(request.payload) if kind.key is not None else None
        if not groups or groups[-1][0] is not kind or (key is not None and key in keys):
            groups.append((kind, []))
            keys = set()
        groups[-1][1].append(request.payload)
        if key is not None:
            keys.add(key)
    return groups


def _settle(future: asyncio.Future[Any], outcome: Any) -> None:
    if future.done():  # the caller was cancelled; the write happened (or failed) all the same
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
