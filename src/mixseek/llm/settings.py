"""Model settings from the optional generation parameters of an agent config."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.settings import ModelSettings


def build_model_settings(
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    stop_sequences: Sequence[str] | None = None,
    timeout_seconds: float | None = None,
    max_retries: int | None = None,
) -> ModelSettings:
    """pydantic-ai `ModelSettings` holding only the values that are set (not None).

    `timeout_seconds` becomes `timeout` (the HTTP timeout of one request) and `max_retries` the
    provider SDK's retry count, which the models `create_model` builds for pydantic-ai providers
    always set to 0 (mixseek retries itself, see `retrying`). Unset values are left out so each
    model keeps its own defaults.
    """
    settings = ModelSettings()
    if temperature is not None:
        settings["temperature"] = temperature
    if max_tokens is not None:
        settings["max_tokens"] = max_tokens
    if top_p is not None:
        settings["top_p"] = top_p
    if seed is not None:
        settings["seed"] = seed
    if stop_sequences is not None:
        settings["stop_sequences"] = list(stop_sequences)
    if timeout_seconds is not None:
        settings["timeout"] = timeout_seconds
    if max_retries is not None:
        settings["max_retries"] = max_retries
    return settings
