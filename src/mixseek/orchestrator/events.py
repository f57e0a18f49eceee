"""An execution's typed events: one stream for `Mixseek.iter`, the live view, log lines and the JSONL log
(`{"at", "kind", "execution_id", "team_id", "round_number", ...own fields}`, read back with `parse_event`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TextIO, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from mixseek.redaction import Redactor
from mixseek.round_controller.models import RoundOutcome, RoundOutcomeStatus
from mixseek.storage.models import FinalStatus, RoundDecision, RoundKey, StopReason
from mixseek.storage.views import UsageTotals
from mixseek.text_safety import strip_controls

_COMMON = ("at", "kind", "execution_id", "team_id", "round_number")


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    execution_id: str
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    def details(self) -> dict[str, Any]:
        """The event's own fields (not where and when), as JSON values."""
        return self.model_dump(mode="json", exclude=set(_COMMON))

    def as_dict(self) -> dict[str, Any]:
        """The JSONL form."""
        return {
            "at": self.at.isoformat(),
            "kind": self.kind,
            "execution_id": self.execution_id,
            "team_id": getattr(self, "team_id", None),
            "round_number": getattr(self, "round_number", None),
            **self.details(),
        }

    def as_line(self) -> str:
        """One human-readable log line."""
        team_id, round_number = getattr(self, "team_id", None), getattr(self, "round_number", None)
        where = [f"team={team_id}" if team_id else "", f"round={round_number}" if round_number else ""]
        details = [f"{k}={_short(v)}" for k, v in self.details().items() if v is not None]
        return " ".join(p for p in (self.at.strftime("%H:%M:%S"), self.kind, *where, *details) if p)


class ExecutionStarted(_Event):
    """A new execution was created in the store; `teams` compete for up to `max_rounds`."""

    kind: Literal["execution_started"] = "execution_started"
    teams: list[str]
    max_rounds: int


class ExecutionResumed(_Event):
    """An interrupted execution goes on; `config_changed` when its configs differ from its start."""

    kind: Literal["execution_resumed"] = "execution_resumed"
    config_changed: bool | None = None


class WorkflowReplaced(_Event):
    """Temporal engine, on a resume: the workflow ran other configs or code (`reason`), so it was
    ended and a new one goes on from the store, playing its team rounds in flight again."""

    kind: Literal["workflow_replaced"] = "workflow_replaced"
    reason: str


class RoundStarted(_Event):
    """Round `round_number` begins for `teams` (those that have not done it yet)."""

    kind: Literal["round_started"] = "round_started"
    round_number: int
    teams: list[str]


class TeamRoundStarted(_Event):
    kind: Literal["team_round_started"] = "team_round_started"
    team_id: str
    round_number: int


class TeamRoundFinished(_Event):
    """A team's round ended: its `score` (0–100) when `completed`, else the `error`."""

    kind: Literal["team_round_finished"] = "team_round_finished"
    team_id: str
    round_number: int
    status: RoundOutcomeStatus
    score: float | None = None
    error: str | None = None
    tokens: int = 0
    elapsed: float = 0.0

    @classmethod
    def of(cls, outcome: RoundOutcome) -> TeamRoundFinished:
        """The event of a team round's outcome, whichever engine ran it."""
        return cls(
            execution_id=outcome.execution_id,
            team_id=outcome.team_id,
            round_number=outcome.round_number,
            status=outcome.status,
            score=outcome.score,
            error=outcome.error,
            tokens=outcome.tokens,
            elapsed=round(outcome.elapsed_seconds, 3),
        )


class TeamDecided(_Event, RoundDecision):
    """A team's `RoundDecision` after a round: by the judgment model (`reason` "judgment", with its
    `reasoning` and `confidence`), by a rule ("min_rounds", "max_rounds"), or "judgment_failed"."""

    kind: Literal["team_decided"] = "team_decided"
    team_id: str
    round_number: int

    @classmethod
    def of(cls, key: RoundKey, decision: RoundDecision) -> TeamDecided:
        """The event of a team's decision after a round, whichever engine made it."""
        return cls(**key._asdict(), **decision.model_dump())


class UsageUpdated(_Event):
    """What the execution has spent so far, after a round and its decisions were stored."""

    kind: Literal["usage_updated"] = "usage_updated"
    round_number: int
    usage: UsageTotals


class ExecutionStopping(_Event):
    """No further round starts: the rounds are done (`finished`), or a limit or interrupt stops them."""

    kind: Literal["execution_stopping"] = "execution_stopping"
    reason: StopReason
    detail: str | None = None


class PairwiseStarted(_Event):
    """The final pairwise stage begins: `teams` (best score first) are compared under `schedule`,
    at most `planned` comparisons of two model calls each; `done` were stored by an earlier run."""

    kind: Literal["pairwise_started"] = "pairwise_started"
    schedule: str
    teams: list[str]
    planned: int
    done: int = 0


class PairwiseCompared(_Event):
    """One comparison judged in both orders and stored: `winner` is None for a tie."""

    kind: Literal["pairwise_compared"] = "pairwise_compared"
    team_a: str
    team_b: str
    outcome: float
    winner: str | None = None
    done: int
    planned: int


class PairwiseFinished(_Event):
    """The pairwise ranking is stored; `status` tells whether every planned comparison was made."""

    kind: Literal["pairwise_finished"] = "pairwise_finished"
    status: str
    detail: str | None = None
    comparisons: int
    leader: str | None = None


class ExecutionFinished(_Event):
    """The final status is stored; the winner is `best_team` (None when no round was scored)."""

    kind: Literal["execution_finished"] = "execution_finished"
    status: FinalStatus
    best_team: str | None = None
    best_score: float | None = None


Event: TypeAlias = Annotated[
    ExecutionStarted
    | ExecutionResumed
    | WorkflowReplaced
    | RoundStarted
    | TeamRoundStarted
    | TeamRoundFinished
    | TeamDecided
    | UsageUpdated
    | ExecutionStopping
    | PairwiseStarted
    | PairwiseCompared
    | PairwiseFinished
    | ExecutionFinished,
    Field(discriminator="kind"),
]
"""Any event of an execution."""

_EVENT: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: Mapping[str, Any]) -> Event:
    """An event from its JSONL form (the nulls of `team_id`/`round_number` it does not have are dropped)."""
    values = {k: v for k, v in data.items() if not (k in ("team_id", "round_number") and v is None)}
    return _EVENT.validate_python(values)


def redacted(event: Event) -> Event:
    """`event` without the values of the credentials set in the environment."""
    redactor = Redactor()
    if not redactor.active:
        return event
    dumped = event.model_dump()
    cleaned = redactor.value(dumped)
    return event if cleaned is dumped else _EVENT.validate_python(cleaned)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


EventSink = Callable[[Event], None]


class EventBus:
    """Fans each event out to every sink; a failing sink never stops the execution."""

    def __init__(self, sinks: Iterable[EventSink] = ()) -> None:
        self.sinks = list(sinks)

    def emit(self, event: Event) -> None:
        # no sink (log file, terminal, API consumer) sees a credential value, e.g. in an echoed error
        event = redacted(event)
        for sink in self.sinks:
            try:
                sink(event)
            except Exception:
                continue


class LogLineSink:
    """Off a terminal: one line per event (on stderr, which may still be a terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(strip_controls(event.as_line()).replace("\n", " ") + "\n")
        self.stream.flush()


class JsonlFileSink:
    """The structured log of one execution: `logs/<execution_id>.jsonl`."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path

    def __call__(self, event: Event) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(event.as_dict(), ensure_ascii=False, default=str) + "\n")
