"""Group commit: writes that arrive while one runs share the next transaction (a save costs ~19 ms).
Consecutive writes of one kind become one multi-row statement. If the shared transaction fails, each write
runs again alone, so a bad row fails only its own caller; writes commit in submission order."""

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
    """How to run consecutive writes of one kind: `write` returns one outcome (or exception) per
    payload; `key` keeps two payloads out of one statement; a kind that `commutes` (appending usage
    rows) runs all its writes of a batch together; `checkpoint` commits the batch into the file."""

    name: str
    write: Callable[[Conn, Sequence[P]], list[Any]]
    key: Callable[[P], object] | None = None
    commutes: bool = False
    checkpoint: bool = False


@dataclass
class _Request:
    kind: WriteKind[Any]
    payload: Any
    future: asyncio.Future[Any]


@dataclass
class WriteQueue:
    """Batches writes for one store; `execute(work, checkpoint)` runs `work(conn)` in one transaction."""

    execute: Callable[[Callable[[Conn], list[Any]], bool], Awaitable[list[Any]]]
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
            checkpoint = any(request.kind.checkpoint for request in batch)
            outcomes = await self.execute(lambda conn: _run_groups(conn, batch), checkpoint)
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
            (outcome,) = await self.execute(
                lambda conn: _run_groups(conn, [request]), request.kind.checkpoint
            )
        except Exception as exc:
            outcome = exc
        _settle(request.future, outcome)


def _run_groups(conn: Conn, batch: Sequence[_Request]) -> list[Any]:
    """Outcomes of `batch`, in its order."""
    outcomes: list[Any] = [None] * len(batch)
    for kind, members in _groups(batch):
        results = kind.write(conn, [batch[i].payload for i in members])
        if len(results) != len(members):
            raise RuntimeError(f"{kind.name}: {len(results)} outcomes for {len(members)} writes")
        for i, result in zip(members, results, strict=True):
            outcomes[i] = result
    return outcomes


def _groups(batch: Sequence[_Request]) -> list[tuple[WriteKind[Any], list[int]]]:
    """Which requests run together, in order: runs of a kind split where a key repeats; commuting apart."""
    groups: list[tuple[WriteKind[Any], list[int]]] = []
    commuting: dict[str, list[int]] = {}
    keys: set[object] = set()
    current: WriteKind[Any] | None = None
    members: list[int] = []
    for index, request in enumerate(batch):
        kind = request.kind
        if kind.commutes:
            if kind.name not in commuting:
                commuting[kind.name] = []
                groups.append((kind, commuting[kind.name]))
            commuting[kind.name].append(index)
            continue
        key = kind.key(request.payload) if kind.key is not None else None
        if current is not kind or (key is not None and key in keys):
            current, keys, members = kind, set(), []
            groups.append((kind, members))
        members.append(index)
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
