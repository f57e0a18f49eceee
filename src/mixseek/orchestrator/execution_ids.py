"""Which execution ids a user may choose: the characters of the generated ones.

An id names files (`logs/<id>.jsonl`), URLs (`/executions/<id>`) and shell commands printed for
the user (`mixseek exec --resume <id>`), so it keeps to what `new_execution_id` produces —
lower-case letters, digits and '-' — and needs no quoting or escaping anywhere.
"""

from __future__ import annotations

import re

EXECUTION_ID_RULE = (
    "use lower-case letters, digits and '-' (at most 64, starting and ending with a letter or digit)"
)
_EXECUTION_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


def is_valid_execution_id(value: str) -> bool:
    """Whether `value` keeps to EXECUTION_ID_RULE."""
    return _EXECUTION_ID.fullmatch(value) is not None
