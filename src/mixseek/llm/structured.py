"""Agents whose model must answer one structured type: metric judges, the judgment, the pairwise judge."""

from __future__ import annotations

from typing import TypeVar

from pydantic_ai import Agent
from pydantic_ai.models import Model

from mixseek.llm.retrying import RetryingModel
from mixseek.llm.settings import build_model_settings

OutputT = TypeVar("OutputT")


def structured_agent(
    model: Model,
    output_type: type[OutputT],
    *,
    instructions: str,
    name: str,
    max_retries: int,
    temperature: float | None,
    max_tokens: int | None,
    timeout_seconds: float | None,
) -> Agent[None, OutputT]:
    """`max_retries` counts both kinds of retry: a failed request (retried by `RetryingModel`, so the
    governor sees every attempt) and an answer that fails validation (sent back as a retry prompt)."""
    return Agent(
        RetryingModel(model, max_retries=max_retries),
        output_type=output_type,
        instructions=instructions,
        model_settings=build_model_settings(
            temperature=temperature, max_tokens=max_tokens, timeout_seconds=timeout_seconds
        ),
        retries=max_retries,
        name=name,
    )
