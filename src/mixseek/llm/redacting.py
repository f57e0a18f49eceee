"""Model answers without the credentials a provider echoed back.

A provider (or a proxy in front of it) that echoes the request's `Authorization` header puts the
API key into the answer: into what the model wrote (text, thinking, tool-call arguments, where a
JSON string holds it escaped), and into the answer's own fields (`model`, `id`, provider
details). Redacting every string of the answer as it arrives keeps it out of everything built
from the answer: the message history, submissions, scores, the spans pydantic-ai records of the
call, and the prompts of the other models a run talks to, which may belong to another provider.
The store, the logs, the terminal and the span exporters redact again on their own
(`mixseek.redaction`).
"""

from __future__ import annotations

from typing import cast

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from mixseek.redaction import Redactor


def redact_response(response: ModelResponse, redactor: Redactor) -> ModelResponse:
    """`response` with every known credential value replaced in each of its strings (the same
    object when there was none)."""
    return cast(ModelResponse, redactor.value(response))


class RedactingModel(WrapperModel):
    """Redacts known credentials from each answer of the wrapped model.

    Streamed requests pass through unredacted: mixseek does not stream, and the store, the logs
    and the terminal still redact what reaches them."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        response = await self.wrapped.request(messages, model_settings, model_request_parameters)
        return redact_response(response, Redactor())
