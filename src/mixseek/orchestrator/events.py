"""What happens during an execution, as events for the live view, log lines and the JSONL log."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TextIO

from mixseek.redaction import redact_in
from mixseek.text_safety import strip_controls

EventKind = Literal[
    "execution_started",
    "execution_resumed",
    "round_started",
    "team_round_started",
    "team_round_finished",
    "team_decided",
    "execution_stopping",
    "execution_finished",
]


@dataclass(frozen=True)
class Event:
    kind: EventKind
    execution_id: str
    team_id: str | None = None
    round_number: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "kind": self.kind,
            "execution_id": self.execution_id,
            "team_id": self.team_id,
            "round_number": self.round_number,
            **self.data,
        }

    def as_line(self) -> str:
        """One human-readable log line."""
        where = " ".join(
            p
            for p in (
                f"team={self.team_id}" if self.team_id else "",
                f"round={self.round_number}" if self.round_number else "",
            )
            if p
        )
        details = " ".join(f"{k}={_short(v)}" for k, v in self.data.items() if v is not None)
        return " ".join(p for p in (self.at.strftime("%H:%M:%S"), self.kind, where, details) if p)


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
        # no sink (log file, terminal) sees a credential value, e.g. in an echoed error
        event = replace(event, data=redact_in(event.data))
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
