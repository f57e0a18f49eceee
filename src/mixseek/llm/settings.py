"""Model settings: a role's explicit keys and its `model_settings` table merged, checked against the settings
type of each model's provider, and recorded without credentials."""

from __future__ import annotations

import difflib
import importlib
import typing
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.errors import PydanticUserError
from pydantic_ai.settings import ModelSettings
from pydantic_core import PydanticSerializationError, to_jsonable_python

from mixseek.llm.model_string import PROVIDER_ALIASES
from mixseek.redaction import Redactor

# pydantic-ai's provider name -> "module.TypedDict" of its settings in pydantic_ai.models; OpenAI-compatible
# providers take OpenAIChatModelSettings, the rest (local:, test, plugins) the base ModelSettings
_OWN = "anthropic google groq mistral bedrock cohere xai cerebras"
_SETTINGS_TYPES = {p: f"{p}.{p.capitalize()}ModelSettings" for p in _OWN.split()} | {
    "openai": "openai.OpenAIResponsesModelSettings",  # pydantic-ai 2 builds a Responses model for it
    "openai-responses": "openai.OpenAIResponsesModelSettings",
    "openai-chat": "openai.OpenAIChatModelSettings",
    "google-cloud": "google.GoogleModelSettings",
    "huggingface": "huggingface.HuggingFaceModelSettings",
    "openrouter": "openrouter.OpenRouterModelSettings",
}
SAMPLING_KEYS = ("temperature", "max_tokens", "top_p", "seed", "stop_sequences")
"""The explicit keys of a role a table may also name: each given one way only."""
RESERVED = {
    "timeout": "mixseek sets it from timeout_seconds: use that key",
    "max_retries": "mixseek retries each request itself (max_retries, outside the table); the SDK's stay 0",
}
"""Keys mixseek sets itself: refused in a table. `extra_headers` and `extra_body` may carry credentials: only
their names are recorded."""


def build_model_settings(
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    stop_sequences: Sequence[str] | None = None,
    timeout_seconds: float | None = None,
    max_retries: int | None = None,
    table: Mapping[str, Any] | None = None,
) -> ModelSettings:
    """The explicit keys that are set (`timeout_seconds` as `timeout`: one HTTP request; `max_retries` the
    SDK's, 0 under `create_model`: mixseek retries itself), then `table`."""
    stop = None if stop_sequences is None else list(stop_sequences)
    given = dict(temperature=temperature, max_tokens=max_tokens, top_p=top_p, seed=seed, stop_sequences=stop)
    given |= {"timeout": timeout_seconds, "max_retries": max_retries}
    settings: ModelSettings = {k: v for k, v in given.items() if v is not None}  # type: ignore[assignment]
    return settings | dict(table or {})  # type: ignore[return-value]


def _provider(model: object) -> str:
    name = model.partition(":")[0] if isinstance(model, str) else str(getattr(model, "system", ""))
    return PROVIDER_ALIASES.get(name, name)


@cache
def settings_type(provider: str) -> tuple[type, str | None]:
    """The settings TypedDict of `provider`'s models, and the key prefix unchecked when its SDK is missing."""
    from pydantic_ai.models import OpenAIChatCompatibleProvider

    chat = provider in typing.get_args(OpenAIChatCompatibleProvider.__value__)
    spec = _SETTINGS_TYPES.get(provider, _SETTINGS_TYPES["openai-chat"] if chat else "")
    module, _, name = spec.partition(".")
    if not module:
        return ModelSettings, None
    try:
        return getattr(importlib.import_module(f"pydantic_ai.models.{module}"), name), None
    except ImportError:
        return ModelSettings, f"{module}_"


@cache
def _adapter(hint: Any) -> TypeAdapter[Any]:
    try:
        return TypeAdapter(hint, config=ConfigDict(arbitrary_types_allowed=True))
    except PydanticUserError:  # a TypedDict carries its own config
        return TypeAdapter(hint)


def settings_problem(
    models: Sequence[object], table: Mapping[str, Any], given: Iterable[str] = ()
) -> tuple[str, str] | None:
    """The first key of `table` given twice, refused by a model's provider or of a wrong value, and why."""
    for key, value in table.items():
        if key in RESERVED or key in given:
            return key, RESERVED.get(key, f"given twice: as {key} and in model_settings")
        for provider in map(_provider, models):
            settings, unchecked = settings_type(provider)
            hints = typing.get_type_hints(settings)
            if key in hints:
                try:
                    _adapter(hints[key]).validate_python(value)
                except ValidationError as exc:
                    return key, exc.errors()[0]["msg"]
            elif not (unchecked and key.startswith(unchecked)):
                known = sorted(set(hints) - set(RESERVED))
                near = "".join(f" (did you mean {m!r}?)" for m in difflib.get_close_matches(key, known, 1))
                sdk = f" (its SDK is not installed: {unchecked}* keys pass unchecked)" if unchecked else ""
                return key, f"not a setting of {provider} models{near}{sdk}; known: {', '.join(known)}"
    return None


def recorded_settings(settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`settings` as stored and shown: JSON values only, header and body values masked, secrets redacted."""
    if not settings:
        return None
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if key in ("extra_headers", "extra_body"):
            value = dict.fromkeys(value, "[REDACTED]") if isinstance(value, Mapping) else "[REDACTED]"
        try:
            out[key] = to_jsonable_python(value)
        except PydanticSerializationError:
            continue  # an SDK object (an httpx Timeout): not recordable
    return Redactor().value(out)  # type: ignore[no-any-return]
