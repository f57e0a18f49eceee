"""Scores of one submission: per metric, overall, and what scoring cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, computed_field, model_serializer
from pydantic_ai import RunUsage

from mixseek.llm.usage import usage_to_dict


class MetricScore(BaseModel):
    """What a metric's model must answer: a 0–100 score and a short reason."""

    score: float = Field(ge=0.0, le=100.0, description="0〜100の評価スコア")
    comment: str = Field(description="スコアの根拠となる簡潔な講評")


class JudgeResult(BaseModel):
    """One judge of a panel on one submission: its score and comment, or why it has none."""

    model: str
    score: float | None
    comment: str | None
    error: str | None = None


class MetricResult(BaseModel):
    """One metric's verdict on one submission; a panel's also lists each judge's (`judges`)."""

    model_config = {"arbitrary_types_allowed": True}

    name: str
    score: float
    comment: str
    weight: float
    usage: RunUsage = Field(default_factory=RunUsage, exclude=True)
    duration_ms: float = 0.0
    judges: list[JudgeResult] | None = None
    aggregate: str | None = Field(default=None, description="mean, median or trimmed_mean (a panel)")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usage_info(self) -> dict[str, Any]:
        return usage_to_dict(self.usage)

    @model_serializer(mode="wrap")
    def _panel_keys_only_for_panels(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a one-model metric dumps as it always did
        data: dict[str, Any] = handler(self)
        if self.judges is None:
            data.pop("judges", None)
            data.pop("aggregate", None)
        return data

    @property
    def details(self) -> dict[str, Any]:
        """The metric's score_details entry: score and comment, plus a panel's `judges` and `aggregate`."""
        entry: dict[str, Any] = {"score": round(self.score, 2), "comment": self.comment}
        if self.judges is not None:
            entry["judges"] = [
                {**j.model_dump(), "score": round(j.score, 2) if j.score is not None else None}
                for j in self.judges
            ]
            entry["aggregate"] = self.aggregate
        return entry


class EvaluationResult(BaseModel):
    """All metric results and their weighted mean."""

    model_config = {"arbitrary_types_allowed": True}

    metrics: list[MetricResult]
    score: float

    @property
    def usage(self) -> RunUsage:
        return sum((m.usage for m in self.metrics), RunUsage())

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usage_info(self) -> dict[str, Any]:
        return usage_to_dict(self.usage)

    @property
    def score_details(self) -> dict[str, dict[str, Any]]:
        """Per-metric score and comment: the next round's スコア詳細, the only feedback its history shows."""
        return {m.name: m.details for m in self.metrics}

    @property
    def feedback(self) -> str:
        """Every metric's comment, one line each, for the next round's prompt and the board."""
        return "\n".join(f"[{m.name}] {m.comment}" for m in self.metrics)
