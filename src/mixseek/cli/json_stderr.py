"""`--log-format json` on stderr: each line written there becomes one JSON object, for log collectors."""

from __future__ import annotations

import atexit
import io
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from mixseek.redaction import Redactor
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from mixseek.orchestrator.events import Event

_LEVELS = {"error": "error", "interrupted": "error", "warning": "warning", "usage:": "error"}


class JsonLines(io.TextIOBase):
    """A text stream that writes each of its lines to `inner` as one JSON object."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.pending = ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for message in filter(None, map(str.strip, lines)):
            level = next((v for k, v in _LEVELS.items() if message.lower().startswith(k)), "info")
            self.put({"level": level, "message": message})
        return len(text)

    def put(self, fields: dict[str, Any]) -> None:
        """One JSON object, redacted, without a control character a terminal would act on."""
        record = {"at": datetime.now(UTC).isoformat(timespec="milliseconds"), **Redactor().value(fields)}
        self.inner.write(strip_controls(json.dumps(record, ensure_ascii=False, default=str)) + "\n")
        self.inner.flush()

    def event(self, event: Event) -> None:
        """An execution's event: its JSONL fields and its log line."""
        self.put({**event.as_dict(), "level": "info", "message": event.as_line()})


def use_json_stderr() -> None:
    """Make `sys.stderr` JSON lines for the rest of the process (once)."""
    if not isinstance(sys.stderr, JsonLines):
        sys.stderr = stream = JsonLines(sys.stderr)
        atexit.register(stream.write, "\n")  # the last line, if it did not end
