"""Model text made safe for a terminal or a Markdown file: no escape sequences or bidi overrides."""

from __future__ import annotations

import re
from typing import Any

# Whole escape sequences, so that their parameters ("[2J", "]0;title") do not remain as text.
_SEQUENCE = re.compile(
    r"""
      \x1b\[ [0-?]* [\x20-/]* [@-~]?        # CSI: colours, cursor moves, clear screen
    | \x9b [0-?]* [\x20-/]* [@-~]?          # the same, as one C1 character
    | (?: \x1b[\]PX^_] | [\x90\x98\x9d\x9e\x9f] )   # OSC (title, links), DCS, SOS, PM, APC ...
      [^\x07\x1b\x9c\n]* (?: \x07 | \x1b\\ | \x9c )?  # ... up to their terminator
    | \x1b [\x20-/]* [0-~]?                 # any other escape (charset, keypad, reset)
    """,
    re.VERBOSE,
)
# C0 controls but tab and newline, DEL, C1 controls; bidi embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CARRIAGE_RETURN = re.compile("\r\n?")


def strip_controls(text: str) -> str:
    """`text` without controls or escape sequences; a lone carriage return becomes a newline."""
    if _CONTROL.search(text) is None:  # the usual case, found in one scan: every sequence starts
        return text  # with a control character, and a carriage return is one
    return _CONTROL.sub("", _SEQUENCE.sub("", _CARRIAGE_RETURN.sub("\n", text)))


def strip_controls_in(data: Any) -> Any:
    """A copy of JSON-like `data` with `strip_controls` applied to every string, keys included."""
    if isinstance(data, str):
        return strip_controls(data)
    if isinstance(data, dict):
        return {strip_controls_in(k): strip_controls_in(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [strip_controls_in(v) for v in data]
    return data
