"""Scores of one submission: per metric, overall, and what scoring cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, computed_field
from pydantic_ai import RunUsage

from mixseek.llm.usage import usage_to_dict


class MetricScore(BaseModel):
    """What a metric's model must answer: a 0–100 score and a short reason."""

    score: float = Field(ge=0.0, le=100.0, description="0〜100の評価スコア")
    comment: str = Field(description="スコアの根拠となる簡潔な講評")


class MetricResult(BaseModel):
    """One metric's verdict on one submission."""

    model_config = {"arbitrary_types_allowed": True}

    name: str
    score: float = Field(ge=0.0, le=100.0)
    comment: str
    weight: float
    usage: RunUsage = Field(default_factory=RunUsage, exclude=True)
    duration_ms: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usage_info(self) -> dict[str, Any]:
        return usage_to_dict(self.usage)


class EvaluationResult(BaseModel):
    """All metric results and their weighted mean."""

    model_config = {"arbitrary_types_allowed": True}

    metrics: list[MetricResult]
    overall_score: float = Field(ge=0.0, le=100.0)

    @property
    def usage(self) -> RunUsage:
        return sum((m.usage for m in self.metrics), RunUsage())

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usage_info(self) -> dict[str, Any]:
        return usage_to_dict(self.usage)

    @property
    def score_details(self) -> dict[str, dict[str, Any]]:
        """Per-metric score and comment: the next round's prompt shows these as スコア詳細.

        The comments go here because the seed's history format has no feedback
        line, and the default template asks the team to act on the feedback.
        """
        return {m.name: {"score": round(m.score, 2), "comment": m.comment} for m in self.metrics}

    @property
    def feedback(self) -> str:
        """Every metric's comment, one line each, for the next round's prompt and the board."""
        return "\n".join(f"[{m.name}] {m.comment}" for m in self.metrics)
