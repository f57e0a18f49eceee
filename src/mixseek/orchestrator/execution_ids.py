"""Which execution ids a user may choose: those that need no quoting in the files, URLs and shell
commands they name (`logs/<id>.jsonl`, `/executions/<id>`, `mixseek exec --resume <id>`)."""

from __future__ import annotations

import re

EXECUTION_ID_RULE = (
    "use lower-case letters, digits and '-' (at most 64, starting and ending with a letter or digit)"
)
_EXECUTION_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")


def is_valid_execution_id(value: str) -> bool:
    """Whether `value` keeps to EXECUTION_ID_RULE."""
    return _EXECUTION_ID.fullmatch(value) is not None
