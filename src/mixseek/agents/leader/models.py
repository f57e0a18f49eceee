"""What members answered during one leader run (seed 004)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer
from pydantic_ai import RunUsage

from mixseek.llm.usage import usage_from_dict, usage_to_dict

__all__ = ["MemberStatus", "MemberSubmission", "MemberSubmissionsRecord", "usage_from_dict", "usage_to_dict"]

MemberStatus = Literal["SUCCESS", "ERROR"]


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
    step_id: str | None = None
    """The workflow step the answer belongs to (None for a leader team's members)."""

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
