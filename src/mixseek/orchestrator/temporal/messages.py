"""What crosses Temporal between the workflow, the workers and the store's writer: plain data, free of heavy
imports (the workflow sandbox imports this module as it is). A worker records a team round's store writes
(`RecordingStore`) for the `mixseek exec` process to apply, so a worker killed mid-round stores nothing."""

from __future__ import annotations

import zlib
from collections.abc import Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mixseek.orchestrator.progress import TeamProgress
from mixseek.round_controller.models import RoundOutcome, RoundSnapshot
from mixseek.storage.models import RoundDecision, RoundKey, RoundRecord
from mixseek.version import __version__

if TYPE_CHECKING:
    from mixseek.storage.protocol import RoundWriter

WORKFLOW_NAME = "MixseekExecution"
# the error type of an activity whose worker could not ask the execution's governor service
GOVERNOR_UNREACHABLE = "GovernorUnreachable"
# the workflow query a worker asks a round's ranking with (see `RankingAsk`)
RANKING_QUERY = "ranking"


def workflow_id(execution_id: str) -> str:
    """The workflow of an execution, as Temporal's UI lists it."""
    return f"mixseek-{execution_id}"


def store_queue(execution_id: str) -> str:
    """The task queue the `mixseek exec` process owning the store serves (and the workflow's)."""
    return f"mixseek-store-{execution_id}"


def team_queue(config_hash: str) -> str:
    """The task queue of team rounds, served only by workers of the same configuration and version."""
    return f"mixseek-teams-{__version__}-{config_hash[:16]}"


class ModelCall(BaseModel):
    """One model request's usage, as `Store.record_model_calls` takes it."""

    team_id: str | None
    round_number: int | None
    site: str
    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    created_at: datetime
    settings: dict[str, Any] | None = None


class _Write(BaseModel):
    """A `RoundWriter` call a worker recorded (`RecordingStore`), with the usage it carries."""

    model_calls: list[ModelCall]

    def calls(self) -> list[dict[str, Any]]:
        return [call.model_dump() for call in self.model_calls]


class SaveRound(_Write):
    kind: Literal["save_round"] = "save_round"
    record: RoundRecord

    def apply(self, store: RoundWriter) -> Coroutine[Any, Any, None]:
        return store.save_round(self.record, model_calls=self.calls())


class RoundFailed(_Write):
    kind: Literal["round_failed"] = "round_failed"
    key: RoundKey
    status: Literal["failed", "timeout"]
    error_message: str
    ended_at: datetime

    def apply(self, store: RoundWriter) -> Coroutine[Any, Any, None]:
        return store.mark_round_failed(
            self.key, self.status, self.error_message, ended_at=self.ended_at, model_calls=self.calls()
        )


class JudgmentWrite(_Write):
    kind: Literal["judgment"] = "judgment"
    key: RoundKey
    decision: RoundDecision

    def apply(self, store: RoundWriter) -> Coroutine[Any, Any, None]:
        return store.update_judgment(self.key, self.decision, model_calls=self.calls())


StoreWrite = Annotated[SaveRound | RoundFailed | JudgmentWrite, Field(discriminator="kind")]


def as_model_calls(rows: Sequence[Mapping[str, Any]]) -> list[ModelCall]:
    return [ModelCall.model_validate(dict(row)) for row in rows]


class RecordingStore:
    """A `RoundWriter` that keeps each write, in order, for the store's writer (`_Write.apply`)."""

    def __init__(self) -> None:
        self.writes: list[StoreWrite] = []

    async def save_round(self, record: RoundRecord, *, model_calls: Sequence[Mapping[str, Any]] = ()) -> None:
        self.writes.append(SaveRound(record=record, model_calls=as_model_calls(model_calls)))

    async def mark_round_failed(
        self,
        key: RoundKey,
        status: Literal["failed", "timeout"],
        error_message: str,
        *,
        ended_at: datetime | None = None,
        model_calls: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        ended = ended_at or datetime.now(UTC)
        calls = as_model_calls(model_calls)
        self.writes.append(
            RoundFailed(
                key=key, status=status, error_message=error_message, ended_at=ended, model_calls=calls
            )
        )

    async def update_judgment(
        self, key: RoundKey, decision: RoundDecision, *, model_calls: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        self.writes.append(JudgmentWrite(key=key, decision=decision, model_calls=as_model_calls(model_calls)))


class GovernorAccess(BaseModel):
    """Where workers ask leave for every model request: the execution's governor service, served
    by the `mixseek exec` process (budgets and rate limits across all workers), and its token."""

    address: str
    token: str


class ExecutionInput(BaseModel):
    """What the workflow needs to run an execution; the rest it reads through the store queue."""

    execution_id: str
    user_prompt: str
    team_ids: list[str]
    max_rounds: int
    min_rounds: int
    max_concurrent_teams: int
    execution_timeout_seconds: float | None
    team_round_timeout_seconds: float | None
    config_hash: str
    reference: str | None = None
    """The reference answer, for the evaluator's reference metrics (never a team's prompt)."""
    history_events_per_run: int = 10_000
    """Past this many history events a run continues as a new one at the next round boundary."""
    # carried from one run to the next when the workflow continues as new
    from_round: int = 1
    started_at: datetime | None = None
    rounds_run: int = 0
    governor: GovernorAccess | None = None


class RankingAsk(BaseModel):
    """The ranking a round's team rounds start from, asked of the workflow once per round by a worker:
    in each activity's input, a round's inputs grew as T² and passed gRPC's 4 MB at 256 teams."""

    round_number: int


class TeamRoundInput(BaseModel):
    execution_id: str
    user_prompt: str
    team_id: str
    round_number: int
    snapshot: RoundSnapshot
    config_hash: str
    governor: GovernorAccess
    reference: str | None = None


class RoundWrites(BaseModel):
    """A team round's store writes and the usage rows its attempt still holds, as a worker made them."""

    writes: list[StoreWrite]
    unsaved_calls: list[ModelCall] = Field(default_factory=list)

    def pack(self) -> bytes:
        """Compressed JSON: histories compress tenfold, in what a workflow keeps (50 MB a run) and replays."""
        return zlib.compress(self.model_dump_json().encode(), 1)

    @classmethod
    def unpack(cls, packed: bytes) -> RoundWrites:
        return cls.model_validate_json(zlib.decompress(packed))


class TeamRoundResult(BaseModel):
    """The outcome the workflow decides on, and the writes only the store's writer opens."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    outcome: RoundOutcome
    writes: bytes
    """`RoundWrites.pack()`"""


class JudgeRound(BaseModel):
    """A round's judgments, made and stored by the `mixseek exec` process in one local activity
    (see `client.StoreActivities.judge_round`): one marker in the history, not one per team."""

    round_number: int
    team_ids: list[str]


class JudgeResult(BaseModel):
    team_id: str
    round_number: int
    decision: RoundDecision | None = None
    budget_error: str | None = None


class RoundBegun(BaseModel):
    """The board every pending team starts the round from, or the budget that stops it first."""

    exceeded: str | None = None
    snapshot: RoundSnapshot | None = None


class FinishInput(BaseModel):
    progress: dict[str, TeamProgress]
    stop_reason: str
    stop_detail: str | None
    rounds_run: int
    started_at: datetime


class BeginRound(BaseModel):
    round_number: int
    pending: list[str]
