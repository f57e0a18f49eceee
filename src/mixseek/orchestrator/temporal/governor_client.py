"""A worker's side of the governor service: one connection per execution, reopened after a drop; an
unreachable service is `GovernorUnreachable` (the activity is retried, perhaps on a resumed `exec`)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI, WebSocketException

from mixseek.errors import describe_exception
from mixseek.llm.governor import BudgetExceeded, GovernorUnreachable, Ticket
from mixseek.llm.usage import usage_to_dict
from mixseek.orchestrator.temporal.governor_service import PING_TIMEOUT
from mixseek.orchestrator.temporal.messages import GovernorAccess

CONNECT_SECONDS = 30.0  # generous: a loaded machine may answer slowly; a refused port fails at once


class _Link:
    def __init__(self, connection: ClientConnection, address: str) -> None:
        self.connection = connection
        self.lost = f"lost the connection to the governor service at {address}"
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read(), name="mixseek-governor-reader")

    @property
    def open(self) -> bool:
        return not self.reader.done()

    async def _read(self) -> None:
        try:
            async for raw in self.connection:
                message = json.loads(raw)
                reply = self.replies.pop(int(message["id"]), None)
                if reply is not None and not reply.done():
                    reply.set_result(message)
        except ConnectionClosed:
            pass
        finally:
            for reply in self.replies.values():
                if not reply.done():
                    reply.set_exception(GovernorUnreachable(self.lost))
            self.replies.clear()

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self.connection.send(json.dumps(message))
        except ConnectionClosed:
            raise GovernorUnreachable(self.lost) from None

    async def close(self) -> None:
        await self.connection.close()
        with contextlib.suppress(Exception):
            await self.reader


class GovernorClient:
    """The `Authority` of a worker's governor for one execution: the service at `access.address`."""

    def __init__(self, access: GovernorAccess) -> None:
        self.access = access
        self._link: _Link | None = None
        self._opening = asyncio.Lock()
        self._ids = itertools.count(1)

    async def _open(self) -> _Link:
        async with self._opening:
            if self._link is not None and self._link.open:
                return self._link
            address = self.access.address
            try:
                connection = await connect(
                    address,
                    additional_headers={"Authorization": f"Bearer {self.access.token}"},
                    open_timeout=CONNECT_SECONDS,
                    compression=None,
                    ping_timeout=PING_TIMEOUT,
                )
            except InvalidStatus as exc:
                raise GovernorUnreachable(
                    f"the governor service at {address} refused this worker "
                    f"(HTTP {exc.response.status_code}: not this execution's token)"
                ) from None
            except (OSError, TimeoutError, InvalidURI, WebSocketException) as exc:
                raise GovernorUnreachable(
                    f"cannot reach the governor service at {address} ({describe_exception(exc)})"
                ) from None
            self._link = _Link(connection, address)
            return self._link

    @asynccontextmanager
    async def admission(self, model_string: str) -> AsyncIterator[Ticket]:
        link = await self._open()
        lease_id = next(self._ids)
        reply = asyncio.get_running_loop().create_future()
        link.replies[lease_id] = reply
        try:
            await link.send({"op": "admit", "id": lease_id, "model": model_string})
            answer = await reply
        except BaseException:
            # cancelled (or the link lost) while waiting: withdraw, so the service takes no slot
            link.replies.pop(lease_id, None)
            with contextlib.suppress(GovernorUnreachable):
                await link.send({"op": "done", "id": lease_id, "spent": None})
            raise
        refused = answer.get("refused")
        if refused is not None:
            raise BudgetExceeded(str(refused["limit"]), float(refused["value"]), float(refused["spent"]))
        ticket = Ticket()
        try:
            yield ticket
        finally:
            spent = usage_to_dict(ticket.spent) if ticket.spent is not None else None
            # a service gone meanwhile has nothing left to count it in (a resumed one reads the store)
            with contextlib.suppress(GovernorUnreachable):
                await link.send({"op": "done", "id": lease_id, "spent": spent})

    async def aclose(self) -> None:
        if self._link is not None:
            await self._link.close()
            self._link = None
