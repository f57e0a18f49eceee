"""The execution's one governor, served to its workers by the `mixseek exec` process over WebSocket: budgets
and rate limits hold across workers only if one place counts. A worker asks `admit` before a request and says
`done` after; a dropped connection frees its slots; a Bearer token authenticates."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import socket
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any

from pydantic_ai import RunUsage
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from mixseek.errors import InputError, RuntimeFailure, describe_exception
from mixseek.llm.governor import BudgetExceeded, Governor
from mixseek.llm.usage import usage_from_dict
from mixseek.orchestrator.temporal.messages import GovernorAccess

DEFAULT_HOST = "127.0.0.1"
WILDCARDS = ("0.0.0.0", "::", "")
# a vanished worker's slots are freed after this long without a pong (a busy one is not dead)
PING_TIMEOUT = 60.0


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (PORT 0: any free port) as `--governor-listen` takes it."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise InputError(f"--governor-listen: {value!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


def check_listen(value: str) -> None:
    """`--governor-listen` names an address this machine can listen on: checked before anything starts."""
    host, port = parse_listen(value)
    try:
        socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET).close()
    except OSError as exc:
        raise InputError(f"--governor-listen: cannot listen on {value} ({describe_exception(exc)})") from None


@dataclass
class _Lease:
    """One request's admission: waiting for a slot, then holding it until the worker says done."""

    task: asyncio.Task[None] | None = None
    admitted: bool = False
    done: asyncio.Future[RunUsage | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class GovernorService(AbstractAsyncContextManager["GovernorService"]):
    """`async with GovernorService(governor) as service:` … `service.access` for the activities."""

    def __init__(self, governor: Governor, *, listen: str | None = None) -> None:
        self.governor = governor
        self.host, self.port = parse_listen(listen) if listen else (DEFAULT_HOST, 0)
        self.token = secrets.token_urlsafe(32)
        self._server: Server | None = None
        self.admitted = 0  # requests let through, for the bench

    @property
    def access(self) -> GovernorAccess:
        assert self._server is not None, "the service is not started"
        port = self._server.sockets[0].getsockname()[1]
        host = socket.gethostname() if self.host in WILDCARDS else self.host
        if ":" in host:
            host = f"[{host}]"
        return GovernorAccess(address=f"ws://{host}:{port}", token=self.token)

    async def __aenter__(self) -> GovernorService:
        try:
            self._server = await serve(
                self._serve,
                self.host,
                self.port,
                process_request=self._authenticate,
                compression=None,  # small JSON messages: deflate costs more CPU than it saves
                ping_timeout=PING_TIMEOUT,
            )
        except OSError as exc:
            raise RuntimeFailure(
                f"--governor-listen: cannot listen on {self.host}:{self.port} ({describe_exception(exc)})"
            ) from None
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    def _authenticate(self, connection: ServerConnection, request: Request) -> Response | None:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "not this execution's governor token\n")
        return None

    async def _serve(self, connection: ServerConnection) -> None:
        leases: dict[int, _Lease] = {}
        try:
            async for raw in connection:
                message = json.loads(raw)
                op, lease_id = message["op"], int(message["id"])
                if op == "admit":
                    lease = leases[lease_id] = _Lease()
                    lease.task = asyncio.create_task(
                        self._admit(connection, lease_id, str(message["model"]), lease, leases)
                    )
                elif op == "done":
                    self._done(leases, lease_id, message.get("spent"))
                else:
                    raise ValueError(f"unknown op {op!r}")
        except ConnectionClosed:
            pass
        except (ValueError, KeyError, TypeError) as exc:
            await connection.close(1008, f"bad message: {describe_exception(exc)}"[:120])
        finally:
            # a worker that is gone holds nothing: its waiting and admitted requests let go
            tasks = [lease.task for lease in leases.values() if lease.task is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _done(self, leases: dict[int, _Lease], lease_id: int, spent: dict[str, Any] | None) -> None:
        lease = leases.get(lease_id)
        if lease is None:
            return
        if not lease.admitted:
            # withdrawn while it waited (the worker's round was cancelled): no slot is taken
            assert lease.task is not None
            lease.task.cancel()
            return
        if not lease.done.done():
            lease.done.set_result(usage_from_dict(spent) if spent is not None else None)

    async def _admit(
        self,
        connection: ServerConnection,
        lease_id: int,
        model: str,
        lease: _Lease,
        leases: dict[int, _Lease],
    ) -> None:
        governor = self.governor
        try:
            governor.check_budget()
            async with governor.limiter(model).slot():
                # again once the slot is ours: what was spent while this request waited counts too
                governor.check_budget()
                lease.admitted = True
                self.admitted += 1
                await connection.send(json.dumps({"id": lease_id, "ok": True}))
                spent = await lease.done
                if spent is not None:
                    # counted, not recorded: the worker returns the rows and the store keeps them
                    governor.ledger.preload(spent)
        except BudgetExceeded as exc:
            refusal = {"limit": exc.limit, "value": exc.value, "spent": exc.spent}
            with contextlib.suppress(ConnectionClosed):
                await connection.send(json.dumps({"id": lease_id, "refused": refusal}))
        except ConnectionClosed:
            pass
        finally:
            leases.pop(lease_id, None)
