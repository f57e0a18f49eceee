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
    """pydantic-ai `ModelSettings` of the values that are set, so each model keeps its own defaults.
    `timeout_seconds` becomes `timeout` (one HTTP request) and `max_retries` the SDK's retry count (0 for the
    models `create_model` builds: mixseek retries itself)."""
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
