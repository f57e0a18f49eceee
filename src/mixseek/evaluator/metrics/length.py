"""`length`, no model call: 100 within `min_chars`/`max_chars` (code points, stripped); below, 100 × chars /
min_chars; above, 100 points lost per `max_chars` over (a near miss costs little, a wild one everything)."""

from __future__ import annotations

from mixseek.evaluator.metrics.base import Metric, MetricOutcome


def length_outcome(chars: int, low: int | None, high: int | None) -> MetricOutcome:
    """The score of a submission of `chars` characters and a comment saying what was checked."""
    if low is not None and chars < low:
        return MetricOutcome(
            score=100.0 * chars / low,
            comment=f"{chars} characters: {low - chars} short of min_chars {low} "
            "(the score falls linearly to 0 at 0 characters)",
        )
    if high is not None and chars > high:
        return MetricOutcome(
            score=max(0.0, 100.0 * (1 - (chars - high) / high)),
            comment=f"{chars} characters: {chars - high} over max_chars {high} "
            f"(the score falls linearly to 0 at {2 * high} characters)",
        )
    if low is not None and high is not None:
        bounds = f"within min_chars {low} and max_chars {high}"
    elif low is not None:
        bounds = f"at least min_chars {low}"
    else:
        bounds = f"at most max_chars {high}"
    return MetricOutcome(score=100.0, comment=f"{chars} characters: {bounds}")


class LengthMetric(Metric):
    """Length bounds, for tasks that state them (an abstract, a tweet, a one-page answer)."""

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        return length_outcome(len(submission.strip()), self.config.min_chars, self.config.max_chars)
