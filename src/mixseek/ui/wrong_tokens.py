"""Wrong dashboard tokens answered ever slower (a dashboard beyond loopback has only its token): each waits
twice the last (capped), one at a time per client, blocking no one; the right token or a pause forgets."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, field

FIRST_DELAY_SECONDS = 0.1
MAX_DELAY_SECONDS = 10.0
FORGET_AFTER_SECONDS = 600.0
MAX_CLIENTS = 4096  # remembered at most (the least recent forgotten first)


def delay_for(failures: int) -> float:
    """The wait before answering a client's `failures`-th wrong token in a row."""
    return min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2.0 ** min(failures - 1, 32))


@dataclass
class _Client:
    failures: int = 0
    last: float = 0.0
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)  # one wrong token of a client waits at a time


@dataclass(frozen=True)
class Slowed:
    """How a wrong token was answered: the client's failures in a row and the wait, in seconds."""

    failures: int
    delay: float


class WrongTokens:
    """The clients that sent wrong tokens lately, by address."""

    def __init__(self) -> None:
        self._clients: OrderedDict[str, _Client] = OrderedDict()

    async def wrong(self, client: str) -> Slowed:
        """Count a wrong token from `client`, and wait its delay after the client's earlier waits."""
        now = time.monotonic()
        found = self._clients.pop(client, None) or _Client()
        if now - found.last > FORGET_AFTER_SECONDS:
            found.failures = 0
        found.failures += 1
        found.last = now
        self._clients[client] = found
        while len(self._clients) > MAX_CLIENTS:
            self._clients.popitem(last=False)
        slowed = Slowed(found.failures, delay_for(found.failures))
        async with found.turn:
            await asyncio.sleep(slowed.delay)
        return slowed

    def right(self, client: str) -> None:
        """`client` sent the right token: its next wrong one starts from the first delay again."""
        self._clients.pop(client, None)
