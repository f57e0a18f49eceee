"""Model answers without the credentials a provider echoed back.

A provider (or a proxy in front of it) that echoes the request's `Authorization` header puts the
API key into the answer. Redacting it as the answer arrives keeps it out of everything built
from the answer: the message history, submissions, scores, and the prompts of the other
models a run talks to, which may belong to another provider. The store, the logs and the
terminal redact again on their own (`mixseek.redaction`).
"""

from __future__ import annotations

import dataclasses

from pydantic_ai.messages import ModelMessage, ModelResponse, ModelResponsePart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from mixseek.redaction import Redactor

# The fields of response parts that carry what the model wrote (text, thinking, tool arguments).
_WRITTEN_FIELDS = ("content", "args")


def _redact_part(part: ModelResponsePart, redactor: Redactor) -> ModelResponsePart:
    changes = {}
    for name in _WRITTEN_FIELDS:
        if hasattr(part, name):
            old = getattr(part, name)
            new = redactor.value(old)
            if new != old:
                changes[name] = new
    return dataclasses.replace(part, **changes) if changes else part


def redact_response(response: ModelResponse, redactor: Redactor) -> ModelResponse:
    """`response` with every known credential value replaced in its parts and provider details."""
    if not redactor.active:
        return response
    parts = [_redact_part(part, redactor) for part in response.parts]
    details = redactor.value(response.provider_details)
    if all(new is old for new, old in zip(parts, response.parts, strict=True)) and details == (
        response.provider_details
    ):
        return response
    return dataclasses.replace(response, parts=parts, provider_details=details)


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
