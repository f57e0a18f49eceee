"""Which DuckDB errors are worth retrying (another process's lock), and the backoff between attempts."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import duckdb

from mixseek.storage.errors import StoreBusyError

if TYPE_CHECKING:
    from tenacity import RetryCallState

T = TypeVar("T")

_LOCK_MARKERS = ("could not set lock", "conflicting lock")
# 2**1000 s is past any max_delay already; a larger exponent would overflow a float
_MAX_EXPONENT = 1000


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; the defaults wait ~5 s, longer than any process holds a file."""

    attempts: int = 12
    base_delay: float = 0.01
    max_delay: float = 1.0
    jitter: float = 0.25

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("base_delay and max_delay must be >= 0")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be within 0..1, got {self.jitter}")

    def delay(self, retry_index: int) -> float:
        """Seconds to wait before retry number `retry_index` (0 = first retry)."""
        delay = min(self.max_delay, self.base_delay * 2.0 ** min(retry_index, _MAX_EXPONENT))
        if self.jitter:
            delay *= 1.0 - self.jitter * random.random()
        return delay


def is_transient(exc: BaseException) -> bool:
    """True for errors that another attempt a moment later can get past."""
    message = str(exc).lower()
    if isinstance(exc, duckdb.Error) and "unique file handle conflict" in message:
        return True  # another store in this process holds the file in the other mode, until idle
    if isinstance(exc, duckdb.IOException):
        return any(marker in message for marker in _LOCK_MARKERS)
    if isinstance(exc, duckdb.TransactionException):
        return "conflict" in message
    # as above, seen by a connection rather than an attach
    return isinstance(exc, duckdb.ConnectionException) and "different configuration" in message


def _options(policy: RetryPolicy, what: str) -> dict[str, Any]:
    """tenacity's settings; once every attempt met the lock, a `StoreBusyError` naming the file."""
    from tenacity import retry_if_exception, stop_after_attempt

    def busy(state: RetryCallState) -> NoReturn:
        exc = state.outcome.exception() if state.outcome is not None else None
        raise StoreBusyError(
            f"{what}: database stayed locked through {policy.attempts} attempts: {exc}"
        ) from exc

    retry = retry_if_exception(is_transient)
    return {
        "stop": stop_after_attempt(policy.attempts),
        "wait": lambda state: policy.delay(state.attempt_number - 1),  # attempts count from 1
        "retry": retry,
        "retry_error_callback": busy,
    }


def run_retrying(policy: RetryPolicy, what: str, attempt: Callable[[], T]) -> T:
    """Call `attempt` until it gets past another process's lock, else `StoreBusyError` naming `what`."""
    try:
        return attempt()
    except duckdb.Error as exc:
        if not is_transient(exc):
            raise
        failed: list[BaseException] = [exc]
    # tenacity loads only now: most processes (`mixseek runs list`) never meet a lock
    from tenacity import Retrying

    def call() -> T:
        if failed:  # tenacity's attempt 1 is the one already made
            raise failed.pop()
        return attempt()

    return Retrying(**_options(policy, what))(call)


async def run_retrying_async(policy: RetryPolicy, what: str, attempt: Callable[[], Awaitable[T]]) -> T:
    """`run_retrying` for the event loop: `attempt` is awaited, and the waits do not block it."""
    try:
        return await attempt()
    except duckdb.Error as exc:
        if not is_transient(exc):
            raise
        failed: list[BaseException] = [exc]
    from tenacity import AsyncRetrying

    async def call() -> T:
        if failed:  # tenacity's attempt 1 is the one already made
            raise failed.pop()
        return await attempt()

    return await AsyncRetrying(**_options(policy, what))(call)
