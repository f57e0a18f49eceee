"""Settings of `configs/evaluator.toml`: which metrics score a submission, with which model."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from mixseek.config.loader import MixseekSettings
from mixseek.config.metric_options import check_patterns, option_problem
from mixseek.config.model_ref import ModelRef
from mixseek.config.model_settings import ModelSettingsTable, check_model_settings
from mixseek.config.registries import METRICS
from mixseek.errors import ConfigError

BUILTIN_METRICS = METRICS.builtin_names()

Aggregate = Literal["mean", "median", "trimmed_mean"]
"""How a judge panel's scores become the metric's score."""

DEFAULT_DISAGREEMENT_THRESHOLD = 20.0
"""Score points between a panel's highest and lowest judge beyond which a submission is flagged."""


class PatternRule(BaseModel):
    """A `patterns` check with a name for people: its comment says what was missing or present in
    the label's words (the feedback a team reads next round), not as a regular expression."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1)
    label: str = Field(min_length=1)


PatternEntry = str | PatternRule
"""A `required_patterns`/`forbidden_patterns` item: a bare regex, or `{ pattern = …, label = … }`."""


class ScaleBounds(BaseModel):
    """The range a metric's scores lie in; a missing bound leaves that side open."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float | None = Field(default=None, allow_inf_nan=False)
    max: float | None = Field(default=None, allow_inf_nan=False)

    @model_validator(mode="after")
    def _ordered(self) -> ScaleBounds:
        if self.min is not None and self.max is not None and self.min >= self.max:
            raise ValueError(f"scale min ({self.min}) must be below max ({self.max})")
        return self

    def contains(self, score: float) -> bool:
        """Whether `score` is finite and within the bounds."""
        low, high = self.min, self.max
        return math.isfinite(score) and (low is None or score >= low) and (high is None or score <= high)

    def __str__(self) -> str:
        bounds = ", ".join(f"{k} = {v}" for k, v in self.model_dump(exclude_none=True).items())
        return "0-100" if self == PERCENT else f"{{ {bounds} }}" if bounds else "unbounded"


PERCENT = ScaleBounds(min=0.0, max=100.0)
Scale = Literal["0-100", "unbounded"] | ScaleBounds
"""A metric's `scale`: "0-100" (built-ins, the default), "unbounded", or `{ min = …, max = … }`."""


def scale_bounds(scale: Scale | Mapping[str, float]) -> ScaleBounds:
    """`scale` as bounds (a metric class may declare a plain dict)."""
    if isinstance(scale, str):
        return PERCENT if scale == "0-100" else ScaleBounds()
    return ScaleBounds.model_validate(scale)


class MetricConfig(BaseModel):
    """One metric: a built-in, registered or installed name, or any name with a custom class given as
    `module:Class` or `path/file.py:Class`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    weight: float | None = Field(default=None, ge=0.0)
    model: ModelRef | None = None
    models: list[ModelRef] | None = Field(
        default=None, description="a judge panel: each model scores independently; see `aggregate`"
    )
    aggregate: Aggregate = "mean"
    trim: float = Field(default=0.2, ge=0.0, lt=0.5, description="share cut from each end (trimmed_mean)")
    class_path: str | None = None
    scale: Scale | None = Field(default=None, description="the scores' range; None: the metric class's")
    system_instruction: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    timeout_seconds: float | None = Field(default=None, gt=0)
    model_settings: ModelSettingsTable = None
    # the deterministic metrics' own keys (see `metric_options`): each belongs to one metric
    min_chars: int | None = Field(default=None, ge=0)
    max_chars: int | None = Field(default=None, gt=0)
    required_patterns: list[PatternEntry] | None = None
    forbidden_patterns: list[PatternEntry] | None = None
    json_schema: dict[str, Any] | str | None = Field(
        default=None, description="a JSON Schema inline, or a JSON file relative to evaluator.toml"
    )

    _patterns = field_validator("required_patterns", "forbidden_patterns")(check_patterns)

    @model_validator(mode="after")
    def validate_known(self) -> MetricConfig:
        if self.class_path is None and self.name not in METRICS:
            raise ValueError(
                f"unknown metric '{self.name}': use one of {', '.join(METRICS.names())} "
                'or set class_path = "module:Class" for a custom metric'
            )
        given = {k: getattr(self, k) for k in self.model_fields_set if getattr(self, k) is not None}
        problem = option_problem(self.name, self.class_path is not None, given)
        if problem is not None:
            raise ValueError(problem)
        if self.model is not None and self.models is not None:
            raise ValueError("give either model (one judge) or models (a panel), not both")
        if self.models is not None and not self.models:
            raise ValueError("models must name at least one judge model")
        if "trim" in self.model_fields_set and self.aggregate != "trimmed_mean":
            raise ValueError("trim applies only to aggregate = 'trimmed_mean'")
        return self

    @property
    def judge_models(self) -> list[ModelRef] | None:
        """The models this metric's judges use, None when it takes the evaluator's model."""
        if self.models is not None:
            return list(self.models)
        return [self.model] if self.model is not None else None


def _default_metrics() -> list[MetricConfig]:
    return [MetricConfig(name=n) for n in ("clarity_coherence", "coverage", "relevance")]


class EvaluatorSettings(MixseekSettings):
    """LLM-as-a-judge scoring: metrics run concurrently, their weighted mean is the score."""

    env_prefix: ClassVar[str] = "MIXSEEK_EVALUATOR__"

    model: ModelRef = "openai:gpt-4o"
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_retries: int = Field(default=3, ge=0)
    timeout_seconds: float = Field(default=120.0, gt=0)
    model_settings: ModelSettingsTable = None
    """Every LLM metric's, under its own `model_settings` and explicit keys."""
    disagreement_threshold: float = Field(default=DEFAULT_DISAGREEMENT_THRESHOLD, ge=0.0, le=100.0)
    metrics: list[MetricConfig] = Field(default_factory=_default_metrics)
    combine: str | None = Field(
        default=None,
        description='"weighted_mean" even across scales, or "metric:<name>": that metric\'s score',
    )

    @field_validator("metrics")
    @classmethod
    def validate_metrics(cls, v: list[MetricConfig]) -> list[MetricConfig]:
        if not v:
            raise ValueError("at least one metric is required")
        names = [m.name for m in v]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate metric name: {duplicates}")
        weighted = [m.weight is not None for m in v]
        if any(weighted) and not all(weighted):
            raise ValueError("give a weight to every metric or to none (none means equal weights)")
        if all(weighted) and sum(m.weight or 0.0 for m in v) <= 0:
            raise ValueError("metric weights must not all be zero")
        return v

    @field_validator("combine")
    @classmethod
    def validate_combine(cls, v: str | None, info: ValidationInfo) -> str | None:
        names = [f"metric:{m.name}" for m in info.data.get("metrics", [])]
        if v not in (None, "weighted_mean", *names):
            raise ValueError(f'combine must be "weighted_mean" or one of {names}, not {v!r}')
        return v

    @model_validator(mode="after")
    def validate_model_settings(self) -> EvaluatorSettings:
        check_model_settings(self, [self.model, *(j for m in self.metrics for j in m.judge_models or [])])
        for i, m in enumerate(self.metrics):
            check_model_settings(
                m, m.judge_models or [self.model], explicit=("temperature", "max_tokens"), at=("metrics", i)
            )
        return self

    def metric_model_settings(self, metric: MetricConfig) -> dict[str, Any]:
        """A metric's judges' table: this file's, less the keys the metric sets itself, then its own."""
        inherited = {k: v for k, v in (self.model_settings or {}).items() if getattr(metric, k, None) is None}
        return inherited | (metric.model_settings or {})

    def overall_scale(self, scales: Mapping[str, ScaleBounds]) -> ScaleBounds:
        """The overall score's scale from each metric's (`scales`); a `ConfigError` saying how to fix it when
        the weighted mean would mix scales and `combine` does not accept that."""
        if self.combine is not None and self.combine.startswith("metric:"):
            return scales[self.combine.removeprefix("metric:")]
        distinct = set(scales.values())
        if len(distinct) == 1:
            return distinct.pop()
        if self.combine != "weighted_mean":
            mixed = "; ".join(f"{name} is {scale}" for name, scale in scales.items())
            fix = 'set combine = "metric:<name>" (that metric decides) or "weighted_mean", or give one scale'
            raise ConfigError(
                None, "evaluator.metrics", f"the weighted mean would mix scales ({mixed}): {fix}"
            )
        return ScaleBounds()  # a mean across scales: no common bound

    def normalized_weights(self) -> dict[str, float]:
        """Weights that sum to 1; equal when none are given."""
        if self.metrics[0].weight is None:
            return {m.name: 1.0 / len(self.metrics) for m in self.metrics}
        total = sum(m.weight or 0.0 for m in self.metrics)
        return {m.name: (m.weight or 0.0) / total for m in self.metrics}


def stored_scale(evaluator: Any) -> ScaleBounds:
    """The overall scale of a stored run's evaluator settings (a config snapshot's): none (an older run) is
    0–100; a custom metric without `scale` counts as unbounded (its class is not imported), as do unreadable
    settings."""
    if not evaluator:
        return PERCENT
    try:
        scales = {
            m["name"]: scale_bounds(m.get("scale") or ("unbounded" if m.get("class_path") else "0-100"))
            for m in evaluator["metrics"]
        }
        return EvaluatorSettings.model_construct(combine=evaluator.get("combine")).overall_scale(scales)
    except (TypeError, KeyError, ValueError, AttributeError):
        return ScaleBounds()
