"""The store's retry loops (tenacity): another process's lock is retried up to the policy's
attempts, then one `StoreBusyError` naming the file; any other error is raised at once."""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import pytest

from mixseek.storage import RetryPolicy, StoreBusyError
from mixseek.storage.retry import run_retrying, run_retrying_async

NO_WAIT = RetryPolicy(attempts=4, base_delay=0.0, jitter=0)


def lock_error(n: int) -> duckdb.IOException:
    return duckdb.IOException(f'IO Error: Could not set lock on file "x.db": Conflicting lock is held ({n})')


def flaky(failures: list[BaseException], calls: list[int]) -> Callable[[], str]:
    """Raises each of `failures` in turn, then returns "done"; counts its calls."""

    def attempt() -> str:
        calls.append(len(calls) + 1)
        if failures:
            raise failures.pop(0)
        return "done"

    return attempt


def test_lock_is_retried_until_it_is_gone() -> None:
    calls: list[int] = []
    locks: list[BaseException] = [lock_error(1), lock_error(2), lock_error(3)]
    assert run_retrying(NO_WAIT, "x.db", flaky(locks, calls)) == "done"
    assert calls == [1, 2, 3, 4]


def test_lock_through_every_attempt_is_busy_naming_the_file_and_the_last_error() -> None:
    calls: list[int] = []
    errors = [lock_error(n) for n in range(1, 6)]
    with pytest.raises(StoreBusyError) as info:
        run_retrying(NO_WAIT, "/ws/mixseek.db", flaky(list(errors), calls))
    assert calls == [1, 2, 3, 4]
    assert str(info.value) == (
        "/ws/mixseek.db: database stayed locked through 4 attempts: "
        'IO Error: Could not set lock on file "x.db": Conflicting lock is held (4)'
    )
    assert info.value.__cause__ is errors[3]


def test_one_attempt_means_no_retry() -> None:
    calls: list[int] = []
    with pytest.raises(StoreBusyError, match=r"^x\.db: database stayed locked through 1 attempts: "):
        run_retrying(RetryPolicy(attempts=1), "x.db", flaky([lock_error(1)], calls))
    assert calls == [1]


@pytest.mark.parametrize(
    "error",
    [
        duckdb.ConstraintException("Constraint Error: CHECK constraint failed"),
        duckdb.IOException("IO Error: No space left on device"),
        ValueError("Could not set lock"),
    ],
)
def test_other_errors_are_raised_at_once_as_they_are(error: Exception) -> None:
    calls: list[int] = []
    with pytest.raises(type(error)) as info:
        run_retrying(NO_WAIT, "x.db", flaky([error], calls))
    assert info.value is error
    assert calls == [1]


def test_a_data_error_after_a_lock_is_raised_as_it_is() -> None:
    calls: list[int] = []
    error = duckdb.ConstraintException("Constraint Error: CHECK constraint failed")
    with pytest.raises(duckdb.ConstraintException) as info:
        run_retrying(NO_WAIT, "x.db", flaky([lock_error(1), error], calls))
    assert info.value is error
    assert calls == [1, 2]


async def test_async_retries_the_lock_and_reports_busy() -> None:
    calls: list[int] = []

    async def attempt(failures: list[BaseException]) -> str:
        return flaky(failures, calls)()

    shared: list[BaseException] = [lock_error(1), lock_error(2)]
    assert await run_retrying_async(NO_WAIT, "x.db", lambda: attempt(shared)) == "done"
    assert calls == [1, 2, 3]

    calls.clear()
    always: list[BaseException] = [lock_error(n) for n in range(1, 10)]
    with pytest.raises(StoreBusyError, match=r"^x\.db: database stayed locked through 4 attempts: .*\(4\)$"):
        await run_retrying_async(NO_WAIT, "x.db", lambda: attempt(always))
    assert calls == [1, 2, 3, 4]

    calls.clear()
    data = duckdb.ConstraintException("Constraint Error: CHECK constraint failed")
    with pytest.raises(duckdb.ConstraintException):
        await run_retrying_async(NO_WAIT, "x.db", lambda: attempt([data]))
    assert calls == [1]


def test_delay_is_capped_however_many_attempts() -> None:
    """A long policy waits max_delay per retry instead of overflowing 2 ** retry."""
    policy = RetryPolicy(attempts=5000, base_delay=0.01, max_delay=1.0, jitter=0)
    assert policy.delay(1023) == 1.0
    assert policy.delay(4998) == 1.0
