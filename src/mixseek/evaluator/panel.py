"""Judge panels: several models score a metric, combined; a failed judge leaves a hole, all failed fail it."""

from __future__ import annotations

import asyncio
import math
import statistics
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from pydantic_ai import RunUsage, UsageLimitExceeded

from mixseek.config.evaluator import Aggregate
from mixseek.errors import RuntimeFailure, describe_exception


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge's answer: a score and comment, or the error that took their place."""

    model: str
    score: float | None
    comment: str | None
    error: str | None = None
    usage: RunUsage = field(default_factory=RunUsage)


class PanelFailed(RuntimeFailure):
    """Every judge of a panel failed: the metric has no score, as when a one-model metric fails."""

    def __init__(self, verdicts: Sequence[JudgeVerdict]) -> None:
        failures = "; ".join(f"{v.model}: {v.error}" for v in verdicts)
        super().__init__(f"all {len(verdicts)} judges failed: {failures}")


def aggregate_scores(scores: Sequence[float], how: Aggregate, trim: float = 0.2) -> float:
    """The panel's score; `trimmed_mean` cuts floor(trim * n) scores from each end (scipy's `trim_mean`)."""
    if not scores:
        raise ValueError("a panel score needs at least one judge's score")
    if how == "median":
        return float(statistics.median(scores))
    if how == "trimmed_mean":
        cut = math.floor(trim * len(scores))
        kept = sorted(scores)[cut : len(scores) - cut]
        return float(statistics.fmean(kept))
    return float(statistics.fmean(scores))


Score = Callable[[], Awaitable[tuple[float, str, RunUsage]]]
"""One judge's scoring call: its score, comment and what it cost."""


async def ask_panel(judges: Sequence[tuple[str, Score]]) -> list[JudgeVerdict]:
    """Each judge's verdict, asked at once; a failure is its `error`, but `UsageLimitExceeded` is raised."""

    async def one(model: str, score: Score) -> JudgeVerdict:
        try:
            value, comment, usage = await score()
        except UsageLimitExceeded:
            raise
        except Exception as exc:
            return JudgeVerdict(model, None, None, describe_exception(exc))
        return JudgeVerdict(model, value, comment, None, usage)

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(model, score)) for model, score in judges]
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    return [task.result() for task in tasks]


def panel_score(verdicts: Sequence[JudgeVerdict], how: Aggregate, trim: float) -> tuple[float, str]:
    """The answered judges' aggregate score and comments (`[model] comment`: a team reads every reason)."""
    answered = [v for v in verdicts if v.score is not None]
    if not answered:
        raise PanelFailed(verdicts)
    score = aggregate_scores([v.score for v in answered if v.score is not None], how, trim)
    return score, "\n".join(f"[{v.model}] {v.comment}" for v in answered)
