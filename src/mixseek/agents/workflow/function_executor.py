"""A workflow executor that is a Python function, called with the input document."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

from mixseek.agents.leader.member_call import error_text
from mixseek.agents.leader.models import MemberSubmission
from mixseek.config.workflow_models import FunctionExecutorConfig
from mixseek.errors import InputError
from mixseek.plugins import load_function

FUNCTION_EXECUTOR_TYPE = "function"
"""The `agent_type` a function executor's answers are recorded with."""


def resolve_function(config: FunctionExecutorConfig, *, base_dir: Path | None) -> Callable[..., Any]:
    """The callable an executor names (a relative file path is taken from the team file's folder)."""
    if isinstance(config.function, str):
        return load_function(config.function, base_dir=base_dir)
    return config.function


def _as_text(value: Any) -> str:
    """A function's result as the executor's content: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        raise InputError("returned None: a function executor must return its result")
    try:
        return to_json(value).decode()
    except PydanticSerializationError as exc:
        raise InputError(
            f"returned a {type(value).__name__}, which is neither text nor JSON: {exc}"
        ) from None


class FunctionExecutor:
    """Calls its function once per run: an async one under the timeout, a sync one in a worker
    thread (a sync function that overruns is abandoned, not stopped: Python cannot stop a thread)."""

    def __init__(self, config: FunctionExecutorConfig, *, base_dir: Path | None = None) -> None:
        self.config = config
        self.function = resolve_function(config, base_dir=base_dir)
        self.is_async = inspect.iscoroutinefunction(self.function) or inspect.iscoroutinefunction(
            getattr(self.function, "__call__", None)  # noqa: B004 - an object with an async __call__
        )

    async def _call(self, document: dict[str, Any]) -> Any:
        if self.is_async:
            return await self.function(document)
        return await asyncio.to_thread(self.function, document)

    async def run(self, document: dict[str, Any], *, step_id: str) -> MemberSubmission:
        """One call, recorded as a member submission; a failure is recorded, not raised."""
        timeout = self.config.timeout_seconds
        started = time.perf_counter()
        content: str | None = None
        error: str | None = None
        try:
            async with asyncio.timeout(timeout):
                value = await self._call(document)
            content = _as_text(value)
        except Exception as exc:
            error = error_text(exc, timeout)
        return MemberSubmission(
            agent_name=self.config.name,
            agent_type=FUNCTION_EXECUTOR_TYPE,
            content=content or "",
            status="SUCCESS" if content is not None else "ERROR",
            error_message=error,
            execution_time_ms=(time.perf_counter() - started) * 1000,
            step_id=step_id,
        )
