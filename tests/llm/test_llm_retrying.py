"""`RetryingModel`: which failures are retried, how long it waits, and that it stops when told.

The waits are read from the warning each retry logs (the delay it is about to sleep), so no test
depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.llm.retrying import RetryingModel, RetryTiming, retry_timing


def failing(error: Exception, calls: list[int], *, times: int | None = None) -> FunctionModel:
    """A model that raises `error` on its first `times` calls (on all of them with None)."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        if times is None or len(calls) <= times:
            raise error
        return ModelResponse(parts=[TextPart("ok")])

    return FunctionModel(fn)


def logged_delays(caplog: pytest.LogCaptureFixture) -> list[float]:
    return [
        float(record.args[4])  # type: ignore[index]
        for record in caplog.records
        if record.name == "mixseek.llm.retry" and "transient error" in record.msg
    ]


async def test_backoff_doubles_with_jitter_and_stops_at_max_delay(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []
    with retry_timing(RetryTiming(base_delay=0.01, max_delay=0.03)):
        model = RetryingModel(failing(ModelHTTPError(503, "m"), calls), max_retries=3)
    with caplog.at_level(logging.WARNING, logger="mixseek.llm.retry"), pytest.raises(ModelHTTPError) as info:
        await Agent(model).run("hi")
    assert info.value.status_code == 503  # the provider's error, not a wrapper
    assert len(calls) == 4
    first, second, third = logged_delays(caplog)
    # retry k waits between c/2 and c, c = min(max_delay, base_delay * 2^(k-1))
    assert 0.005 <= first <= 0.01
    assert 0.01 <= second <= 0.02
    assert 0.015 <= third <= 0.03
    assert "retry 1/3" in caplog.records[0].getMessage()
    assert "retry 3/3" in caplog.records[2].getMessage()


async def test_retry_after_replaces_the_backoff(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []
    limited = ModelHTTPError(429, "m", headers={"retry-after": "0"})
    with retry_timing(RetryTiming(base_delay=30, max_delay=60)):
        model = RetryingModel(failing(limited, calls, times=2), max_retries=3)
    with caplog.at_level(logging.WARNING, logger="mixseek.llm.retry"):
        result = await Agent(model).run("hi")
    assert result.output == "ok"
    assert len(calls) == 3
    assert logged_delays(caplog) == [0.0, 0.0]


async def test_retry_after_is_capped_at_max_delay(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []
    limited = ModelHTTPError(429, "m", headers={"retry-after": "3600"})
    with retry_timing(RetryTiming(base_delay=0.01, max_delay=0.02)):
        model = RetryingModel(failing(limited, calls, times=1), max_retries=3)
    with caplog.at_level(logging.WARNING, logger="mixseek.llm.retry"):
        result = await Agent(model).run("hi")
    assert result.output == "ok"
    assert logged_delays(caplog) == [0.02]


@pytest.mark.parametrize(
    ("error", "attempts"),
    [
        (ModelHTTPError(400, "m", body={"error": "bad request"}), 1),
        (ModelHTTPError(401, "m"), 1),
        (ModelHTTPError(404, "m"), 1),
        (ValueError("a bug, not the network"), 1),
        (ModelHTTPError(429, "m"), 3),
        (ModelHTTPError(502, "m"), 3),
        (ModelHTTPError(529, "m"), 3),
        (httpx.ConnectError("connection refused"), 3),
        (httpx.ReadTimeout("read timed out"), 3),
    ],
    ids=lambda v: type(v).__name__ + (f"-{v.status_code}" if isinstance(v, ModelHTTPError) else ""),
)
async def test_only_transient_errors_are_retried(error: Exception, attempts: int) -> None:
    calls: list[int] = []
    with retry_timing(RetryTiming(base_delay=0, max_delay=0)):
        model = RetryingModel(failing(error, calls), max_retries=2)
    with pytest.raises(type(error)) as info:
        await Agent(model).run("hi")
    assert info.value is error
    assert len(calls) == attempts


async def test_concurrent_requests_retry_independently() -> None:
    """One model serves many agents at once; each request keeps its own attempt count."""
    seen: dict[str, int] = {}

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = next(
            part.content
            for message in messages
            for part in getattr(message, "parts", [])
            if isinstance(part, UserPromptPart)
        )
        assert isinstance(prompt, str)
        seen[prompt] = seen.get(prompt, 0) + 1
        if seen[prompt] <= 2:
            raise ModelHTTPError(503, "m", headers={"retry-after": "0"})
        return ModelResponse(parts=[TextPart(f"ok {prompt}")])

    model = RetryingModel(FunctionModel(fn), max_retries=2)
    results = await asyncio.gather(*(Agent(model).run(f"p{i}") for i in range(8)))
    assert [r.output for r in results] == [f"ok p{i}" for i in range(8)]
    assert seen == {f"p{i}": 3 for i in range(8)}


async def test_cancelling_during_the_backoff_stops_at_once() -> None:
    calls: list[int] = []
    failed = asyncio.Event()

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        failed.set()
        raise ModelHTTPError(503, "m")

    with retry_timing(RetryTiming(base_delay=3600, max_delay=3600)):
        model = RetryingModel(FunctionModel(fn), max_retries=3)
    task = asyncio.create_task(Agent(model).run("hi"))
    await failed.wait()  # the task runs on until it sleeps before its first retry
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert calls == [1]
