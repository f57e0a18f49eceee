"""Closing JSON that generation cut off.

Grammar-constrained output is always a prefix of a valid JSON document, so when `max_tokens` (or
a stop sequence, or a cancelled request) ends it early, closing the open string, dropping a
dangling key or comma and closing the open containers gives a document that parses. Missing
required fields are then reported by pydantic's validation, which asks the model again.
"""

from __future__ import annotations

import json
import re

_PARTIAL_ESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{0,3})?$")


def close_truncated_json(text: str) -> str | None:
    """`text` completed into parseable JSON, or None when no value had started."""
    stripped = text.strip()
    if not stripped:
        return None
    if _parses(stripped):
        return stripped

    # Each open container: its closing character and what it expects next
    # ("key", "colon", "value" or "comma"; arrays use "value" and "comma").
    stack: list[list[str]] = []
    in_string = False
    escaped = False
    string_is_key = False
    scalar_start: int | None = None
    out: list[str] = []

    def value_done() -> None:
        if stack:
            stack[-1][1] = "comma"

    for char in stripped:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if string_is_key:
                    stack[-1][1] = "colon"
                else:
                    value_done()
            continue
        if scalar_start is not None and (char in ",]}:" or char.isspace()):
            scalar_start = None
            value_done()
        out.append(char)
        if char in "{[":
            stack.append(["}" if char == "{" else "]", "key" if char == "{" else "value"])
        elif char in "}]":
            if stack:
                stack.pop()
            value_done()
        elif char == '"':
            in_string = True
            string_is_key = bool(stack) and stack[-1][0] == "}" and stack[-1][1] == "key"
        elif char == ":":
            if stack:
                stack[-1][1] = "value"
        elif char == ",":
            if stack:
                stack[-1][1] = "key" if stack[-1][0] == "}" else "value"
        elif not char.isspace() and scalar_start is None:
            scalar_start = len(out) - 1

    result = "".join(out)
    if in_string:
        result = _PARTIAL_ESCAPE_RE.sub("", result) + '"'
        if string_is_key:
            stack[-1][1] = "colon"
        else:
            value_done()
    elif scalar_start is not None:
        token = result[scalar_start:]
        if _parses(token):
            value_done()
        else:
            result = result[:scalar_start]

    if not stack:
        return result if _parses(result) else None
    for closer, expecting in reversed(stack):
        result = result.rstrip()
        if expecting == "colon":
            result += ": null"
        elif expecting == "value" and result.endswith(":"):
            result += " null"
        elif result.endswith(","):
            result = result[:-1]
        result += closer
    return result if _parses(result) else None


def _parses(text: str) -> bool:
    try:
        json.loads(text, strict=False)
    except ValueError:
        return False
    return True
