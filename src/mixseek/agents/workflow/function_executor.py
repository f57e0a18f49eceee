"""A workflow executor that is a Python function, called with the input document."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai import UsageLimitExceeded
from pydantic_core import PydanticSerializationError, to_json

from mixseek.agents.leader.member_call import member_span, traced
from mixseek.agents.leader.models import MemberSubmission
from mixseek.config.workflow_models import FunctionExecutorConfig
from mixseek.errors import InputError, describe_exception
from mixseek.plugins import load_function

FUNCTION_EXECUTOR_TYPE = "function"
"""The `agent_type` a function executor's answers are recorded with."""


class ResultError(InputError):
    """A function returned something that is not an executor's result."""


def result_text(value: Any) -> str:
    """A function's result as the executor's content: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        raise ResultError("returned None: return the result as text, or as data to be written as JSON")
    try:
        return to_json(value).decode()
    except PydanticSerializationError as exc:
        kind = type(value).__name__
        raise ResultError(f"returned a {kind}, which is neither text nor JSON: {exc}") from None


async def in_daemon_thread(function: Callable[..., Any], *args: Any, name: str) -> Any:
    """`function(*args)` in a daemon thread of its own, awaited: one that overruns its timeout is abandoned
    (in `asyncio.to_thread` it would hold a shared worker and delay exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()  # model overrides and call scopes, as to_thread would pass

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():  # else the awaiting task was cancelled (timed out) and has gone
            outcome()

    def work() -> None:
        try:
            outcome = functools.partial(future.set_result, context.run(function, *args))
        except BaseException as exc:  # handed to the awaiting task, which decides
            outcome = functools.partial(future.set_exception, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


class FunctionExecutor:
    """Calls its function once per run under its timeout (a sync one in a thread of its own)."""

    def __init__(self, config: FunctionExecutorConfig, *, base_dir: Path | None = None) -> None:
        self.config = config
        # a relative file path is taken from the team file's folder
        named = config.function
        self.function = load_function(named, base_dir=base_dir) if isinstance(named, str) else named
        # an `async def` function, or an object whose `__call__` is one
        self.is_async = inspect.iscoroutinefunction(self.function) or inspect.iscoroutinefunction(
            getattr(self.function, "__call__", None)  # noqa: B004 - an object with an async __call__
        )

    async def _call(self, document: dict[str, Any]) -> Any:
        if self.is_async:
            value = await self.function(document)
        else:
            value = await in_daemon_thread(
                self.function, document, name=f"mixseek workflow executor '{self.config.name}'"
            )
        while inspect.isawaitable(value):  # a sync wrapper around an async function
            value = await value
        return value

    async def run(self, document: dict[str, Any], *, step_id: str) -> MemberSubmission:
        """One call, recorded as a member submission; a failure is recorded, not raised (a usage limit is)."""
        timeout = self.config.timeout_seconds
        started = time.perf_counter()
        content: str | None = None
        error: str | None = None
        deadline = asyncio.timeout(timeout)
        with member_span(self.config.name, FUNCTION_EXECUTOR_TYPE, step_id) as span:
            try:
                async with deadline:
                    value = await self._call(document)
                content = result_text(value)
            except UsageLimitExceeded:
                raise
            except ResultError as exc:
                error = str(exc)
            except (Exception, SystemExit) as exc:  # sys.exit() in a user's function ends only its run
                # a TimeoutError the function raised itself is its error, not the timeout's
                error = f"timed out after {timeout:g} s" if deadline.expired() else describe_exception(exc)
            submission = MemberSubmission(
                agent_name=self.config.name,
                agent_type=FUNCTION_EXECUTOR_TYPE,
                content=content or "",
                status="SUCCESS" if content is not None else "ERROR",
                error_message=error,
                execution_time_ms=(time.perf_counter() - started) * 1000,
                step_id=step_id,
            )
            return traced(span, submission)
