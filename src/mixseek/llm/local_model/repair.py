"""Reading JSON that generation cut off. Constrained output is a prefix of valid JSON, so pydantic-core's
partial parser reads what is there; missing required fields are then left to pydantic's validation, which asks
the model again."""

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
    """Raw control characters inside strings written as escapes (only possible without the grammar)."""
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
