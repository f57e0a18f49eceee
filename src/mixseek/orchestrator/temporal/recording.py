"""A team round's store writes, recorded on a worker rather than made there.

A worker has no database: the writes travel back with the activity's result, and the
`mixseek exec` process owning the store applies them (`client.StoreActivities`). A worker
killed mid-round thus stores nothing; the round redone elsewhere stores its writes once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from mixseek.orchestrator.temporal.messages import (
    JudgmentWrite,
    ModelCall,
    RoundFailed,
    SaveRound,
    StoreWrite,
)
from mixseek.storage.models import RoundDecision, RoundKey, RoundRecord


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
