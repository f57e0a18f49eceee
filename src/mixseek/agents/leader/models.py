"""What members answered during one leader run (seed 004)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer
from pydantic_ai import RunUsage

MemberStatus = Literal["SUCCESS", "ERROR"]


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


class MemberSubmission(BaseModel):
    """One member's answer to one delegated task, with its cost and timing."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent_name: str = Field(min_length=1)
    agent_type: str
    content: str
    status: MemberStatus
    error_message: str | None = None
    usage: RunUsage = Field(default_factory=RunUsage)
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))
    execution_time_ms: float | None = None

    @field_serializer("usage")
    def serialize_usage(self, usage: RunUsage) -> dict[str, int | float | None]:
        return usage_to_dict(usage)


class MemberSubmissionsRecord(BaseModel):
    """All member answers of one team in one round; formatting is left to the round controller."""

    team_id: str
    team_name: str
    round_number: int = Field(ge=1)
    submissions: list[MemberSubmission] = Field(default_factory=list)

    @property
    def successful_submissions(self) -> list[MemberSubmission]:
        return [s for s in self.submissions if s.status == "SUCCESS"]

    @property
    def failed_submissions(self) -> list[MemberSubmission]:
        return [s for s in self.submissions if s.status == "ERROR"]

    @property
    def total_count(self) -> int:
        return len(self.submissions)

    @property
    def success_count(self) -> int:
        return len(self.successful_submissions)

    @property
    def failure_count(self) -> int:
        return len(self.failed_submissions)

    @property
    def total_usage(self) -> RunUsage:
        return sum((s.usage for s in self.submissions), RunUsage())

    def stored_json(self) -> dict[str, object]:
        """The seed-004 JSON form: the submissions without the derived fields."""
        return self.model_dump(mode="json")
