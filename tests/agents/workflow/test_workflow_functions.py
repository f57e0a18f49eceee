"""Function executors: sync and async callables, what they return, how they fail and time out."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import UsageLimitExceeded

from mixseek.agents.workflow.function_executor import FunctionExecutor
from mixseek.config.workflow_models import FunctionExecutorConfig
from mixseek.errors import InputError

DOCUMENT: dict[str, Any] = {"format": "mixseek.workflow.input/1", "user_prompt": "課題", "previous_steps": []}


async def run(
    function: Any, *, timeout: float = 300.0, base_dir: Path | None = None
) -> tuple[str, str, str | None]:
    config = FunctionExecutorConfig(name="fn", function=function, timeout_seconds=timeout)
    submission = await FunctionExecutor(config, base_dir=base_dir).run(DOCUMENT, step_id="step")
    assert (submission.agent_name, submission.agent_type, submission.step_id) == ("fn", "function", "step")
    assert submission.usage.requests == 0 and submission.execution_time_ms is not None
    return submission.status, submission.content, submission.error_message


async def test_a_sync_function_runs_in_a_daemon_thread_of_its_own() -> None:
    """Not in a worker of the loop's shared executor, which a process waits for at exit."""
    threads: list[threading.Thread] = []

    def sync(doc: dict[str, Any]) -> str:
        threads.append(threading.current_thread())
        return f"got {doc['user_prompt']}"

    assert await run(sync) == ("SUCCESS", "got 課題", None)
    assert threads[0] is not threading.main_thread() and threads[0].daemon


class AsyncCallable:
    async def __call__(self, doc: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return "from an object"


async def _coroutine_result(doc: dict[str, Any]) -> str:
    return "awaited"


def returns_a_coroutine(doc: dict[str, Any]) -> Any:
    """A sync wrapper around an async function, as some decorators write them."""
    return _coroutine_result(doc)


async def async_function(doc: dict[str, Any]) -> str:
    await asyncio.sleep(0)
    return "async " + doc["user_prompt"]


@pytest.mark.parametrize(
    ("function", "content"),
    [
        (async_function, "async 課題"),
        (AsyncCallable(), "from an object"),
        (returns_a_coroutine, "awaited"),
        (lambda doc: "", ""),
    ],
    ids=["async", "async-callable-object", "sync-returning-a-coroutine", "empty-text"],
)
async def test_async_callables_are_awaited(function: Any, content: str) -> None:
    assert await run(function) == ("SUCCESS", content, None)


@pytest.mark.parametrize(
    ("value", "content"),
    [
        ({"score": 3, "tags": ["a", "b"], "note": "日本語"}, '{"score":3,"tags":["a","b"],"note":"日本語"}'),
        ([1, 2.5, None, True], "[1,2.5,null,true]"),
        (42, "42"),
    ],
)
async def test_a_result_that_is_not_text_is_written_as_json(value: Any, content: str) -> None:
    assert await run(lambda doc: value) == ("SUCCESS", content, None)


async def test_returning_none_is_a_failure() -> None:
    assert await run(lambda doc: None) == (
        "ERROR",
        "",
        "returned None: return the result as text, or as data to be written as JSON",
    )


async def test_returning_something_that_is_not_json_is_a_failure() -> None:
    status, content, error = await run(lambda doc: object())
    assert (status, content) == ("ERROR", "")
    assert error is not None and error.startswith("returned a object, which is neither text nor JSON: ")


def raises(doc: dict[str, Any]) -> str:
    raise LookupError("missing\nmore")


async def async_raises(doc: dict[str, Any]) -> str:
    raise RuntimeError("async broke\ndetails")


def raises_its_own_timeout(doc: dict[str, Any]) -> str:
    raise TimeoutError("the upstream service was slow")


def exits(doc: dict[str, Any]) -> str:
    sys.exit(3)


async def async_exits(doc: dict[str, Any]) -> str:
    sys.exit(4)


@pytest.mark.parametrize(
    ("function", "error"),
    [
        (raises, "LookupError: missing"),
        (async_raises, "RuntimeError: async broke"),
        (raises_its_own_timeout, "TimeoutError: the upstream service was slow"),
        (exits, "SystemExit: 3"),
        (async_exits, "SystemExit: 4"),
    ],
    ids=["sync", "async", "own-timeout-error", "sys-exit", "async-sys-exit"],
)
async def test_an_exception_is_recorded_as_the_executors_failure(function: Any, error: str) -> None:
    assert await run(function) == ("ERROR", "", error)


async def test_an_async_function_that_overruns_its_timeout_is_cancelled() -> None:
    never = asyncio.Event()
    cancelled: list[bool] = []

    async def waits(doc: dict[str, Any]) -> str:
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    assert await run(waits, timeout=0.05) == ("ERROR", "", "timed out after 0.05 s")
    assert cancelled == [True]


async def test_a_sync_function_that_overruns_its_timeout_is_recorded_as_timed_out() -> None:
    never = threading.Event()
    try:
        assert await run(lambda doc: never.wait(), timeout=0.05) == ("ERROR", "", "timed out after 0.05 s")
    finally:
        never.set()  # let the abandoned thread end


OVERRUN = """
import asyncio, threading
from mixseek.agents.workflow.function_executor import FunctionExecutor
from mixseek.config.workflow_models import FunctionExecutorConfig

async def main():
    stuck = lambda doc: threading.Event().wait()
    config = FunctionExecutorConfig(name="stuck", function=stuck, timeout_seconds=0.1)
    submission = await FunctionExecutor(config).run({}, step_id="s")
    print(submission.error_message, flush=True)

asyncio.run(main())
print("loop closed", flush=True)
"""


def test_a_process_ends_even_while_an_abandoned_sync_function_still_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", OVERRUN], capture_output=True, text=True, timeout=240, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "timed out after 0.1 s\nloop closed\n", "")


async def test_a_usage_limit_inside_a_sync_function_is_raised() -> None:
    def spends(doc: dict[str, Any]) -> str:
        raise UsageLimitExceeded("budget spent")

    with pytest.raises(UsageLimitExceeded, match="budget spent"):
        await run(spends)


async def test_functions_named_by_module_or_by_a_file_relative_to_the_team_folder(tmp_path: Path) -> None:
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "fns.py").write_text(
        "async def shout(document):\n    return document['user_prompt'] + '!'\n", encoding="utf-8"
    )
    assert await run("steps/fns.py:shout", base_dir=tmp_path) == ("SUCCESS", "課題!", None)
    status, content, _ = await run("json:dumps")
    assert status == "SUCCESS" and json.loads(content) == DOCUMENT
    with pytest.raises(InputError, match="file not found"):
        await run("steps/fns.py:shout", base_dir=tmp_path / "elsewhere")
