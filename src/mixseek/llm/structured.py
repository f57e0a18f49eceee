"""Agents whose model must answer one structured type: metric judges, the judgment, the pairwise judge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic_ai import Agent, RunUsage, UsageLimitExceeded
from pydantic_ai.models import Model

from mixseek.errors import RuntimeFailure, describe_exception
from mixseek.llm.factory import create_model
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
    model_settings: Mapping[str, Any] | None = None,
) -> Agent[None, OutputT]:
    """`max_retries` counts both kinds of retry: a failed request (retried by `RetryingModel`, so the
    governor sees every attempt) and an answer that fails validation (sent back as a retry prompt)."""
    return Agent(
        RetryingModel(model, max_retries=max_retries),
        output_type=output_type,
        instructions=instructions,
        model_settings=build_model_settings(
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_seconds=timeout_seconds,
            table=model_settings,
        ),
        retries=max_retries,
        name=name,
    )


class JudgeSettings(Protocol):
    """The settings of a judge with a file of its own (the judgment, the pairwise judge)."""

    model: str | Model
    system_instruction: str | None
    max_retries: int
    temperature: float | None
    max_tokens: int | None
    timeout_seconds: float
    model_settings: dict[str, Any] | None


class JudgeError(RuntimeFailure):
    """A judge's model call failed after its retries."""


@dataclass(frozen=True)
class Judged(Generic[OutputT]):
    output: OutputT
    usage: RunUsage


class StructuredJudge(Generic[OutputT]):
    """A judge answering `output_type`, its requests counted under `site`; a failed call raises `error`."""

    def __init__(
        self,
        settings: JudgeSettings,
        output_type: type[OutputT],
        site: str,
        instructions: str,
        error: type[JudgeError],
    ) -> None:
        self.site, self.error = site, error
        self.agent: Agent[None, OutputT] = structured_agent(
            create_model(settings.model, role=site),
            output_type,
            instructions=settings.system_instruction or instructions,
            name=site.replace(" ", "_"),
            max_retries=settings.max_retries,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            timeout_seconds=settings.timeout_seconds,
            model_settings=settings.model_settings,
        )

    async def ask(self, prompt: str) -> Judged[OutputT]:
        try:
            result = await self.agent.run(prompt)
        except UsageLimitExceeded:
            raise  # the execution's budget, not this judge, stopped it
        except Exception as exc:
            raise self.error(f"{self.site} failed: {describe_exception(exc)}") from exc
        return Judged(result.output, result.usage)
