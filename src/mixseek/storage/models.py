"""What the store saves and returns: JSON columns as Python values, except `message_history`,
kept as the caller's JSON text so that the store never imports pydantic-ai."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

FinalStatus = Literal["completed", "partial_failure", "failed", "interrupted"]
"""How an execution ended: what the orchestrator writes at the end (and `mixseek exec` exits with)."""
ExecutionStatus = Literal["running", FinalStatus]
"""An execution's status as stored and read (the one definition; others import it from here)."""
StopReason = Literal["finished", "budget", "execution_timeout", "interrupted"]
"""Why the round loop stopped (stored in an execution's summary)."""
RoundStatusValue = Literal["running", "completed", "failed", "timeout"]
DecisionReason = Literal["min_rounds", "max_rounds", "judgment", "judgment_failed"]


def as_utc(value: datetime) -> datetime:
    """Aware datetimes are converted to UTC; naive ones are taken to be UTC already."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class _Record(BaseModel):
    # built on first use: a reader of the store validates only the records it reads
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class RoundKey(NamedTuple):
    """One team's round of one execution: the key of its stored rows."""

    execution_id: str
    team_id: str
    round_number: int


class RoundDecision(_Record):
    """Whether a team goes on after a round, and why: what the round controller decides, the store
    keeps with the round, the Temporal engine carries and `TeamDecided` announces."""

    should_continue: bool
    reason: DecisionReason
    confidence: float | None = None
    reasoning: str | None = None

    @field_validator("confidence")
    @classmethod
    def _within_unit(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"confidence must be within 0..1, got {value}")
        return value

    @property
    def exit_reason(self) -> DecisionReason | None:
        """The reason the store keeps as the round's exit reason: a stop's only."""
        return None if self.should_continue else self.reason


class RoundRecord(_Record):
    """Everything one finished round of one team produced: the input of `save_round`."""

    execution_id: str = Field(min_length=1)
    team_id: str = Field(min_length=1)
    team_name: str = Field(min_length=1)
    round_number: int = Field(ge=1)
    submission_content: str
    submission_format: str = "structured_json"
    evaluation_score: float = Field(allow_inf_nan=False)
    evaluation_feedback: str | None = None
    score_details: dict[str, Any] = Field(default_factory=dict)
    usage_info: dict[str, Any] = Field(default_factory=dict)
    message_history: str | None = Field(
        default=None, description="pydantic-ai message history, already serialised to JSON"
    )
    member_submissions_record: dict[str, Any] = Field(default_factory=dict)
    started_at: datetime
    ended_at: datetime
    should_continue: bool | None = None
    judgment_reasoning: str | None = None
    judgment_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    exit_reason: str | None = None

    @property
    def key(self) -> RoundKey:
        return RoundKey(self.execution_id, self.team_id, self.round_number)

    @field_validator("message_history", mode="before")
    @classmethod
    def _decode_bytes(cls, value: object) -> object:
        # ModelMessagesTypeAdapter.dump_json() returns bytes.
        if isinstance(value, bytes | bytearray):
            return bytes(value).decode("utf-8")
        return value


class ExecutionLease(_Record):
    """Which process owns an execution (see `storage.lease`), and whether it still runs."""

    pid: int
    host: str
    process_started: float | None
    acquired_at: datetime
    heartbeat_at: datetime
    alive: bool
    command_sha256: str | None = None
    """The digest of the owner's command line (`lease.command_digest`); None in older leases."""


class ExecutionRecord(_Record):
    """An execution as readers should see it: a `running` execution whose owner is gone
    reads as `interrupted` (it can be resumed), ended at its last sign of life."""

    execution_id: str
    user_prompt: str
    status: ExecutionStatus
    config: dict[str, Any]
    started_at: datetime
    ended_at: datetime | None
    summary: dict[str, Any] | None
    owner: ExecutionLease | None = None
    reference: str | None = None
    """The reference answer reference metrics compare submissions with (never shown to teams)."""
    active_since: datetime | None = None
    """When the latest process took the execution (created or resumed it); None before schema 7."""
    active_before_seconds: float | None = None
    """The time the processes before the latest one ran the execution, summed."""


class LeaderBoardRow(_Record):
    id: int
    execution_id: str
    team_id: str
    team_name: str
    round_number: int
    evaluation_score: float
    evaluation_feedback: str | None
    score_details: dict[str, Any]
    submission_content: str
    submission_format: str | None
    usage_info: dict[str, Any] | None
    is_final: bool
    created_at: datetime


class RoundHistoryRecord(_Record):
    id: int
    execution_id: str
    team_id: str
    team_name: str
    round_number: int
    message_history: str | None = Field(description="JSON text exactly as saved")
    member_submissions_record: dict[str, Any] | None
    created_at: datetime


class RoundStatusRecord(_Record):
    execution_id: str
    team_id: str
    round_number: int
    status: RoundStatusValue
    started_at: datetime | None
    ended_at: datetime | None
    should_continue: bool | None
    judgment_reasoning: str | None
    judgment_confidence: float | None
    exit_reason: str | None
    error_message: str | None

    @property
    def decision(self) -> RoundDecision | None:
        """The decision stored with the round (a foreign exit reason reads as "judgment")."""
        if self.should_continue is None:
            return None
        reason = self.exit_reason if self.exit_reason in get_args(DecisionReason) else "judgment"
        return RoundDecision.model_validate(
            {
                "should_continue": self.should_continue,
                "reason": reason,
                "reasoning": self.judgment_reasoning,
                "confidence": self.judgment_confidence,
            }
        )
