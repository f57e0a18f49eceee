"""Reading JSON that generation cut off.

Grammar-constrained output is always a prefix of a valid JSON document, so when `max_tokens` (or
a stop sequence, or a cancelled request) ends it early, pydantic-core's partial parser reads what
is there: the open string is kept, a dangling key is dropped and open containers are closed.
Missing required fields are then reported by pydantic's validation, which asks the model again.
"""

from __future__ import annotations

from typing import Any

import pydantic_core

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def parse_truncated_json(text: str) -> Any:
    """The value `text` starts, completed; raises ValueError when no value had started."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("no JSON value")
    return pydantic_core.from_json(_escape_raw_controls(stripped), allow_partial="trailing-strings")


def _escape_raw_controls(text: str) -> str:
    """Raw control characters inside strings written as escapes, as `json.loads(strict=False)` reads them.

    Only output generated without the grammar can hold them; outside strings they are white space
    (or invalid anyway) and stay as they are."""
    if not any(ord(c) < 0x20 for c in text):
        return text
    out: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string and ord(char) < 0x20:
            out.append(_ESCAPES.get(char, f"\\u{ord(char):04x}"))
            escaped = False
            continue
        out.append(char)
        if escaped:
            escaped = False
        elif in_string and char == "\\":
            escaped = True
        elif char == '"':
            in_string = not in_string
    return "".join(out)
