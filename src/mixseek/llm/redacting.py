"""Model answers without the credentials a provider echoed back: a provider or proxy echoing the
`Authorization` header puts the API key into the answer; redacting it on arrival keeps it out of everything
built from it, including spans and other providers' prompts."""

from __future__ import annotations

from typing import cast

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from mixseek.redaction import Redactor


def redact_response(response: ModelResponse, redactor: Redactor) -> ModelResponse:
    """`response` with every known credential value replaced (the same object when there was none)."""
    return cast(ModelResponse, redactor.value(response))


class RedactingModel(WrapperModel):
    """Redacts known credentials from each answer of the wrapped model; streams pass unredacted (mixseek does
    not stream, and the store, logs and terminal redact again)."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        response = await self.wrapped.request(messages, model_settings, model_request_parameters)
        return redact_response(response, Redactor())
