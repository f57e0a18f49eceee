"""Retrying only the model call that failed, when the failure is worth retrying: one request (not a whole
round), so every earlier step of a run is kept. Provider SDKs' own retries are off (`SingleAttemptModel`), so
every attempt passes the governor once."""

from __future__ import annotations

import logging
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
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random_exponential,
)
from tenacity.wait import wait_base

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


class WaitRetryAfter(wait_base):
    """Retry-After when given (up to `max_delay`), else "equal jitter" backoff: the k-th retry waits c/2 to c,
    c = min(max_delay, base_delay × 2^(k-1)), sparing the provider and spreading teams."""

    def __init__(self, timing: RetryTiming) -> None:
        self.max_delay = timing.max_delay
        base, cap = timing.base_delay / 2, timing.max_delay / 2
        self.backoff = wait_exponential(multiplier=base, max=cap) + wait_random_exponential(
            multiplier=base, max=cap
        )

    def __call__(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        retry_after = exc.retry_after if isinstance(exc, ModelAPIError) else None
        if retry_after is not None and retry_after >= 0:
            return min(float(retry_after), self.max_delay)
        return self.backoff(retry_state)


class RetryingModel(WrapperModel):
    """A model whose transient failures are retried up to `max_retries` times; streams pass unretried."""

    def __init__(self, wrapped: Model, *, max_retries: int = 3) -> None:
        super().__init__(wrapped)
        self.max_retries = max_retries
        # fixed when the model is built, so a run keeps the timing it started with
        self.timing = _timing.get() or _DEFAULT_TIMING
        self._wait = WaitRetryAfter(self.timing)

    def _log_retry(self, retry_state: RetryCallState) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        delay = retry_state.next_action.sleep if retry_state.next_action is not None else 0.0
        logger.warning(
            "model %s: transient error (%s), retry %d/%d in %.2f s",
            self.model_name,
            type(exc).__name__,
            retry_state.attempt_number,
            self.max_retries,
            delay,
            # fields of their own in `--log-format json`
            extra={
                "model": self.model_name,
                "error": type(exc).__name__,
                "retry": retry_state.attempt_number,
                "max_retries": self.max_retries,
                "delay_s": round(delay, 3),
            },
        )

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        # The first attempt is made directly: tenacity's bookkeeping leaves ~20 objects of cyclic
        # garbage per call, which on the path every request takes made the garbage collector cost
        # more than the retries ever do. tenacity takes over once an attempt has failed.
        try:
            return await self.wrapped.request(messages, model_settings, model_request_parameters)
        except Exception as exc:
            if self.max_retries < 1 or not is_transient(exc):
                raise
            failed = exc
        return await self._retry(failed, messages, model_settings, model_request_parameters)

    async def _retry(
        self,
        failed: Exception,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The retries of a request whose first attempt raised `failed`."""
        first = [failed]

        async def attempt() -> ModelResponse:
            if first:  # tenacity's attempt 1 is the one already made
                raise first.pop()
            return await self.wrapped.request(messages, model_settings, model_request_parameters)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(is_transient),
            before_sleep=self._log_retry,
            reraise=True,  # the provider's own error, not tenacity's RetryError
        )
        return await retrying(attempt)


def _one_attempt(model: Model, settings: ModelSettings | None) -> ModelSettings | None:
    if "max_retries" in model.unsupported_settings:
        return settings
    single = ModelSettings()
    single.update(settings or {})
    single["max_retries"] = 0
    return single


class SingleAttemptModel(WrapperModel):
    """A provider model whose SDK makes one HTTP attempt per request (`max_retries` = 0): SDK retries would be
    invisible to the rate limiter, the budget and `Retry-After`."""

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
