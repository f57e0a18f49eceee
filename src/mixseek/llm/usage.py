"""pydantic-ai's `RunUsage` as a plain dict and back: the one form usage is stored and shown in."""

from __future__ import annotations

from decimal import Decimal

from pydantic_ai import RunUsage


def usage_to_dict(usage: RunUsage) -> dict[str, int | float | None]:
    """The counters worth storing; zero token kinds are left out except the main three."""
    data: dict[str, int | float | None] = {
        "requests": usage.requests,
        "tool_calls": usage.tool_calls,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
    }
    for name in ("cache_write_tokens", "cache_read_tokens", "input_audio_tokens", "cache_audio_read_tokens"):
        value = getattr(usage, name)
        if value:
            data[name] = value
    if usage.cost is not None:
        data["cost"] = float(usage.cost)
    return data


def usage_from_dict(data: dict[str, object]) -> RunUsage:
    """The inverse of `usage_to_dict`: token and request counts, and the cost where known."""
    usage = RunUsage()
    for name, value in data.items():
        if name == "cost":
            if isinstance(value, int | float):
                usage.cost = Decimal(str(value))
        elif hasattr(usage, name) and isinstance(value, int):
            setattr(usage, name, value)
    return usage
