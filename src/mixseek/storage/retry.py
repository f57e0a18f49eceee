"""Which DuckDB errors are worth retrying, and how long to wait between attempts.

DuckDB lets one process open a file read-write, or many processes open it
read-only. Another mixseek process (a dashboard, `mixseek runs`) therefore
briefly locks the file now and then; opening it during that window fails
with an `IOException` about the lock. Waiting a little and trying again is
the right answer. Errors caused by the data (constraint violations, bad
JSON) fail the same way every time and are raised at once.

tenacity runs the attempts (stop, wait, which errors to retry, re-raising);
what is mixseek's own is which errors are transient (`is_transient`), the
backoff (`RetryPolicy`) and the `StoreBusyError` raised when every attempt
met the lock.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, TypeVar

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
    """Exponential backoff: attempt k (0-based) waits base_delay * 2**k, capped at max_delay.

    `jitter` is the fraction of each delay that is randomised (0 disables
    it) so that processes that collided do not retry in lock step. The
    defaults wait up to about 5 s in all: far longer than any other mixseek
    process holds the file, short enough to report a stuck one.
    """

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

    def wait(self, state: RetryCallState) -> float:
        """tenacity's wait: the delay after attempt `state.attempt_number` (1-based) failed."""
        return self.delay(state.attempt_number - 1)


def is_transient(exc: BaseException) -> bool:
    """True for errors that another attempt a moment later can get past."""
    message = str(exc).lower()
    if isinstance(exc, duckdb.Error) and "unique file handle conflict" in message:
        # Another store in this process holds the file in the other mode: read-only (attached,
        # `_readers`) vs read-write; it closes it when idle.
        return True
    if isinstance(exc, duckdb.IOException):
        return any(marker in message for marker in _LOCK_MARKERS)
    if isinstance(exc, duckdb.TransactionException):
        return "conflict" in message
    if isinstance(exc, duckdb.ConnectionException):
        # Another store in this process holds the file open in the other
        # mode (read-only vs read-write); it closes it when idle.
        return "different configuration" in message
    return False


def _raise_busy(policy: RetryPolicy, what: str) -> Callable[[RetryCallState], NoReturn]:
    """tenacity's callback once every attempt met the lock: one line naming the file."""

    def busy(state: RetryCallState) -> NoReturn:
        exc = state.outcome.exception() if state.outcome is not None else None
        raise StoreBusyError(
            f"{what}: database stayed locked through {policy.attempts} attempts: {exc}"
        ) from exc

    return busy


def run_retrying(policy: RetryPolicy, what: str, attempt: Callable[[], T]) -> T:
    """Call `attempt` until it gets past another process's lock (blocking; for code outside the
    event loop). `what` names the file in the `StoreBusyError` raised when every attempt met the
    lock; other errors are raised at once.

    The first attempt is made directly and tenacity takes over only once it met a lock: every
    store operation passes here, and tenacity's bookkeeping is not free."""
    try:
        return attempt()
    except duckdb.Error as exc:
        if not is_transient(exc):
            raise
        failed: list[BaseException] = [exc]
    # tenacity loads only now: most processes (`mixseek runs list`) never meet a lock
    from tenacity import Retrying, retry_if_exception, stop_after_attempt

    def call() -> T:
        if failed:  # tenacity's attempt 1 is the one already made
            raise failed.pop()
        return attempt()

    retrying = Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=policy.wait,
        retry=retry_if_exception(is_transient),
        retry_error_callback=_raise_busy(policy, what),
    )
    return retrying(call)


async def run_retrying_async(policy: RetryPolicy, what: str, attempt: Callable[[], Awaitable[T]]) -> T:
    """`run_retrying` for the event loop: `attempt` is awaited, and the waits do not block it."""
    try:
        return await attempt()
    except duckdb.Error as exc:
        if not is_transient(exc):
            raise
        failed: list[BaseException] = [exc]
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    async def call() -> T:
        if failed:  # tenacity's attempt 1 is the one already made
            raise failed.pop()
        return await attempt()

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.attempts),
        wait=policy.wait,
        retry=retry_if_exception(is_transient),
        retry_error_callback=_raise_busy(policy, what),
    )
    return await retrying(call)
