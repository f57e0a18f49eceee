"""Retrying only the model call that failed, when the failure is worth retrying.

Wrapping the model (rather than re-running a whole agent or team round) keeps
every earlier step of a run — member answers, tool results — and repeats
just one request, after exponential backoff with jitter or the delay the
provider asked for in `Retry-After`.

mixseek is the only one that retries: `SingleAttemptModel` turns the provider
SDKs' own retries off, so every HTTP attempt passes the governor (rate limits,
budgets) once and is classified by `is_transient` here.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic_ai import RunContext
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelHTTPError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelRequestTimeout,
    ModelServerError,
    ModelUnavailableError,
)
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

logger = logging.getLogger("mixseek.llm.retry")

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class RetryTiming:
    """How long to wait between attempts; an execution sets it once for every model."""

    base_delay: float = 1.0
    max_delay: float = 60.0


_DEFAULT_TIMING = RetryTiming()
_timing: ContextVar[RetryTiming | None] = ContextVar("mixseek_retry_timing", default=None)


@contextmanager
def retry_timing(timing: RetryTiming) -> Iterator[None]:
    token = _timing.set(timing)
    try:
        yield
    finally:
        _timing.reset(token)


def is_transient(exc: BaseException) -> bool:
    """Rate limits, server errors, timeouts and dropped connections; not bad requests or quotas."""
    if isinstance(exc, ModelQuotaExceededError):
        return False
    if isinstance(
        exc,
        ModelRateLimitError
        | ModelServerError
        | ModelConnectionError
        | ModelUnavailableError
        | ModelRequestTimeout,
    ):
        return True
    if isinstance(exc, ModelHTTPError):
        return exc.status_code in TRANSIENT_STATUS
    return isinstance(exc, TimeoutError | httpx.TimeoutException | httpx.TransportError | ConnectionError)


def retry_delay(exc: BaseException, attempt: int, *, base_delay: float, max_delay: float) -> float:
    """Retry-After when the provider gave one, else capped exponential backoff with full jitter."""
    retry_after = exc.retry_after if isinstance(exc, ModelAPIError) else None
    if retry_after is not None and retry_after >= 0:
        return min(float(retry_after), max_delay)
    ceiling = min(max_delay, base_delay * (2**attempt))
    return random.uniform(ceiling / 2, ceiling)


class RetryingModel(WrapperModel):
    """A model whose failed requests are retried up to `max_retries` times when transient.

    Streamed requests pass through unretried: mixseek does not stream, and a
    stream that already yielded events cannot be repeated safely.
    """

    def __init__(self, wrapped: Model, *, max_retries: int = 3) -> None:
        super().__init__(wrapped)
        self.max_retries = max_retries
        # fixed when the model is built, so a run keeps the timing it started with
        self.timing = _timing.get() or _DEFAULT_TIMING

    async def _wait_before_retry(self, exc: BaseException, attempt: int) -> None:
        delay = retry_delay(exc, attempt, base_delay=self.timing.base_delay, max_delay=self.timing.max_delay)
        logger.warning(
            "model %s: transient error (%s), retry %d/%d in %.2f s",
            self.model_name,
            type(exc).__name__,
            attempt + 1,
            self.max_retries,
            delay,
        )
        await asyncio.sleep(delay)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        attempt = 0
        while True:
            try:
                return await self.wrapped.request(messages, model_settings, model_request_parameters)
            except Exception as exc:
                if attempt >= self.max_retries or not is_transient(exc):
                    raise
                await self._wait_before_retry(exc, attempt)
                attempt += 1


def _one_attempt(model: Model, settings: ModelSettings | None) -> ModelSettings | None:
    if "max_retries" in model.unsupported_settings:
        return settings
    single = ModelSettings()
    single.update(settings or {})
    single["max_retries"] = 0
    return single


class SingleAttemptModel(WrapperModel):
    """A provider model whose SDK makes exactly one HTTP attempt per request.

    The OpenAI, Anthropic, Groq and Cohere SDKs retry failed requests twice on their own. Beneath
    `RetryingModel` and the governor those retries would be invisible: a failing call would reach
    the provider three times per mixseek attempt, and the rate limiter, the `max_requests` budget
    and `Retry-After` handling would see only one. pydantic-ai's `max_retries` setting = 0 turns
    them off for every model that honours it (see `pydantic_ai.settings.ModelSettings`).
    """

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        settings = _one_attempt(self.wrapped, model_settings)
        return await self.wrapped.request(messages, settings, model_request_parameters)

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        settings = _one_attempt(self.wrapped, model_settings)
        return await self.wrapped.count_tokens(messages, settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        settings = _one_attempt(self.wrapped, model_settings)
        async with self.wrapped.request_stream(
            messages, settings, model_request_parameters, run_context
        ) as stream:
            yield stream
