"""The base classes a custom metric subclasses: `Metric`, `LLMMetric` or mixseek-core's `BaseMetric`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from pydantic_ai import Agent, RunUsage
from pydantic_ai.models import Model

from mixseek.config.evaluator import Aggregate, EvaluatorSettings, MetricConfig, Scale
from mixseek.config.prompt_defaults import METRIC_INSTRUCTION
from mixseek.evaluator.models import MetricScore
from mixseek.evaluator.panel import JudgeVerdict, ask_panel, panel_score
from mixseek.llm.factory import create_model
from mixseek.llm.model_objects import model_label
from mixseek.llm.structured import structured_agent
from mixseek.models import evaluation_result as core


@dataclass
class MetricOutcome:
    """A metric's raw answer before weighting."""

    score: float
    comment: str
    usage: RunUsage = field(default_factory=RunUsage)
    judges: list[JudgeVerdict] | None = None
    """A panel's verdicts, one per judge model; None for a one-model (or non-LLM) metric."""
    aggregate: Aggregate | None = None


class Metric(ABC):
    """Scores a submission. `score` gets the task, the submission and the rendered evaluator prompt, and
    those of the keywords `execution_id`, `team_id`, `round_number` it declares (or all, with `**kwargs`); a
    `ReferenceMetric` also gets the execution's reference answer (`reference`). `scale` is the scores' range
    when the metric's entry gives none: "0-100", "unbounded" or `{"min": …, "max": …}`."""

    scale: ClassVar[Scale | Mapping[str, float]] = "0-100"

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        self.config = config
        self.settings = settings

    @classmethod
    def create(cls, config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None) -> Metric:
        """The metric of an entry; `base_dir` (evaluator.toml's) resolves files it names (`json_schema`)."""
        return cls(config, settings)

    @property
    def name(self) -> str:
        return self.config.name

    @abstractmethod
    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        """`evaluator_prompt` is the rendered evaluator_user_prompt template for this submission."""


class LLMMetric(Metric):
    """A metric whose model reads the evaluator prompt under the metric's own instruction."""

    instruction: ClassVar[str] = METRIC_INSTRUCTION

    def __init__(self, config: MetricConfig, settings: EvaluatorSettings) -> None:
        super().__init__(config, settings)
        role = f"evaluator metric '{config.name}'"
        # each judge model is created (and so governed) on its own: its requests count by themselves
        self.judges: list[tuple[str, Agent[None, MetricScore]]] = [
            (model_label(model), self._agent(create_model(model, role=role)))
            for model in config.judge_models or [settings.model]
        ]
        self.agent = self.judges[0][1]

    @property
    def is_panel(self) -> bool:
        """Whether the metric names its judges with `models` (even one): its details list them."""
        return self.config.models is not None

    def _agent(self, model: Model) -> Agent[None, MetricScore]:
        config, settings = self.config, self.settings
        return structured_agent(
            model,
            MetricScore,
            instructions=config.system_instruction or self.instruction,
            name=f"metric:{config.name}",
            max_retries=self._max_retries,
            temperature=config.temperature if config.temperature is not None else settings.temperature,
            max_tokens=config.max_tokens or settings.max_tokens,
            timeout_seconds=config.timeout_seconds or settings.timeout_seconds,
            model_settings=settings.metric_model_settings(config),
        )

    @property
    def _max_retries(self) -> int:
        return self.config.max_retries if self.config.max_retries is not None else self.settings.max_retries

    @staticmethod
    async def _ask(agent: Agent[None, MetricScore], prompt: str) -> tuple[float, str, RunUsage]:
        result = await agent.run(prompt)
        return result.output.score, result.output.comment, result.usage

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        if not self.is_panel:
            score, comment, usage = await self._ask(self.agent, evaluator_prompt)
            return MetricOutcome(score=score, comment=comment, usage=usage)
        verdicts = await ask_panel(
            [(label, partial(self._ask, a, evaluator_prompt)) for label, a in self.judges]
        )
        score, comment = panel_score(verdicts, self.config.aggregate, self.config.trim)
        return MetricOutcome(
            score=score,
            comment=comment,
            usage=sum((v.usage for v in verdicts), RunUsage()),
            judges=verdicts,
            aggregate=self.config.aggregate,
        )


class BaseMetric(Metric):
    """mixseek-core's metric: `evaluate` in a subclass built without arguments; unbounded, as there."""

    scale: ClassVar[Scale | Mapping[str, float]] = "unbounded"

    def __init__(self) -> None:
        """Its config and settings are set by `create`."""

    @classmethod
    def create(cls, config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None) -> Metric:
        metric = cls()
        Metric.__init__(metric, config, settings)
        return metric

    @abstractmethod
    async def evaluate(
        self,
        user_query: str,
        submission: str,
        execution_id: str | None = None,
        team_id: str | None = None,
        round_number: int | None = None,
        **kwargs: object,
    ) -> core.MetricScore: ...

    async def score(
        self, user_prompt: str, submission: str, evaluator_prompt: str, **context: Any
    ) -> MetricOutcome:
        result = await self.evaluate(user_prompt, submission, **context)
        return MetricOutcome(score=result.score, comment=result.evaluator_comment)
