"""Which DuckDB errors are worth retrying, and how long to wait between attempts.

DuckDB lets one process open a file read-write, or many processes open it
read-only. Another mixseek process (a dashboard, `mixseek runs`) therefore
briefly locks the file now and then; opening it during that window fails
with an `IOException` about the lock. Waiting a little and trying again is
the right answer. Errors caused by the data (constraint violations, bad
JSON) fail the same way every time and are raised at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import duckdb

from mixseek.storage.errors import StoreBusyError

T = TypeVar("T")

_LOCK_MARKERS = ("could not set lock", "conflicting lock")


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
        delay = min(self.max_delay, self.base_delay * 2.0**retry_index)
        if self.jitter:
            delay *= 1.0 - self.jitter * random.random()
        return delay


def is_transient(exc: BaseException) -> bool:
    """True for errors that another attempt a moment later can get past."""
    message = str(exc).lower()
    if isinstance(exc, duckdb.IOException):
        return any(marker in message for marker in _LOCK_MARKERS)
    if isinstance(exc, duckdb.TransactionException):
        return "conflict" in message
    if isinstance(exc, duckdb.ConnectionException):
        # Another store in this process holds the file open in the other
        # mode (read-only vs read-write); it closes it when idle.
        return "different configuration" in message
    return False


def run_retrying(policy: RetryPolicy, what: str, attempt: Callable[[], T]) -> T:
    """Call `attempt` until it gets past another process's lock (blocking; for code outside the
    event loop). `what` names the file in the error raised when every attempt met the lock."""
    for retry_index in range(policy.attempts):
        try:
            return attempt()
        except duckdb.Error as exc:
            if not is_transient(exc):
                raise
            if retry_index + 1 >= policy.attempts:
                raise StoreBusyError(
                    f"{what}: database stayed locked through {policy.attempts} attempts: {exc}"
                ) from exc
            time.sleep(policy.delay(retry_index))
    raise AssertionError("unreachable: policy.attempts >= 1")
