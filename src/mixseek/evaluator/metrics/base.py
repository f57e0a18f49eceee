"""The metric base classes; custom metrics subclass `Metric` or `LLMMetric`.

A custom metric is named in evaluator.toml as
`[[evaluator.metrics]] name = "mine"  class_path = "package.module:Class"`
(or `path/to/file.py:Class`, relative to evaluator.toml).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from pydantic_ai import Agent, RunUsage

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
from mixseek.evaluator.models import MetricScore
from mixseek.llm import build_model_settings, create_model
from mixseek.llm.retrying import RetryingModel


@dataclass
class MetricOutcome:
    """A metric's raw answer before weighting."""

    score: float
    comment: str
    usage: RunUsage = field(default_factory=RunUsage)


class Metric(ABC):
    """Scores a submission 0–100."""

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        self.config = config
        self.settings = settings

    @property
    def name(self) -> str:
        return self.config.name

    @abstractmethod
    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        """`evaluator_prompt` is the rendered evaluator_user_prompt template for this submission."""


class LLMMetric(Metric):
    """A metric whose model reads the evaluator prompt under the metric's own instruction."""

    instruction: ClassVar[str] = (
        "あなたは提出内容を評価する審査員です。ユーザのタスクに対する提出内容の質を0〜100で採点し、"
        "根拠を簡潔に述べてください。"
    )

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        super().__init__(config, settings)
        model = create_model(config.model or settings.model, role=f"evaluator metric '{config.name}'")
        self.agent: Agent[None, MetricScore] = Agent(
            RetryingModel(model, max_retries=self._max_retries),
            output_type=MetricScore,
            instructions=config.system_instruction or self.instruction,
            model_settings=build_model_settings(
                temperature=config.temperature if config.temperature is not None else settings.temperature,
                max_tokens=config.max_tokens or settings.max_tokens,
                timeout_seconds=config.timeout_seconds or settings.timeout_seconds,
            ),
            retries=self._max_retries,
            name=f"metric:{config.name}",
        )

    @property
    def _max_retries(self) -> int:
        return self.config.max_retries if self.config.max_retries is not None else self.settings.max_retries

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        result = await self.agent.run(evaluator_prompt)
        return MetricOutcome(score=result.output.score, comment=result.output.comment, usage=result.usage)
