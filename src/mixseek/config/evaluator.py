"""Settings of `configs/evaluator.toml`: which metrics score a submission, with which model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from mixseek.config.loader import MixseekSettings
from mixseek.config.model_ref import ModelRef
from mixseek.config.registries import METRICS

BUILTIN_METRICS = METRICS.builtin_names()


class MetricConfig(BaseModel):
    """One metric: a built-in, registered or installed name, or any name with a custom class given as
    `module:Class` or `path/file.py:Class`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    weight: float | None = Field(default=None, ge=0.0)
    model: ModelRef | None = None
    class_path: str | None = None
    system_instruction: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    timeout_seconds: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def validate_known(self) -> MetricConfig:
        if self.class_path is None and self.name not in METRICS:
            raise ValueError(
                f"unknown metric '{self.name}': use one of {', '.join(METRICS.names())} "
                'or set class_path = "module:Class" for a custom metric'
            )
        return self


def _default_metrics() -> list[MetricConfig]:
    return [MetricConfig(name=n) for n in ("clarity_coherence", "coverage", "relevance")]


class EvaluatorSettings(MixseekSettings):
    """LLM-as-a-judge scoring: metrics run concurrently, their weighted mean is the score."""

    model_config = SettingsConfigDict(env_prefix="MIXSEEK_EVALUATOR__")

    model: ModelRef = "openai:gpt-4o"
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_retries: int = Field(default=3, ge=0)
    timeout_seconds: float = Field(default=120.0, gt=0)
    metrics: list[MetricConfig] = Field(default_factory=_default_metrics)

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

    def normalized_weights(self) -> dict[str, float]:
        """Weights that sum to 1; equal when none are given."""
        if self.metrics[0].weight is None:
            return {m.name: 1.0 / len(self.metrics) for m in self.metrics}
        total = sum(m.weight or 0.0 for m in self.metrics)
        return {m.name: (m.weight or 0.0) / total for m in self.metrics}
