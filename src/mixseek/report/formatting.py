"""Template filters for scores, tokens, costs, durations and times; a missing value reads as an en dash."""

from __future__ import annotations

from datetime import UTC, datetime

MISSING = "–"


def score(value: float | None) -> str:
    return MISSING if value is None else f"{value:.1f}"


def tokens(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def cost(value: float | None) -> str:
    return MISSING if value is None else f"${value:.4f}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return MISSING
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {rest:02d} s"


def when_utc(value: datetime | None) -> str:
    """A time in UTC, said so: a report is read on other machines, in other time zones."""
    return MISSING if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def confidence(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


FILTERS = {
    "score": score,
    "tokens": tokens,
    "cost": cost,
    "duration": duration,
    "when_utc": when_utc,
    "confidence": confidence,
}
