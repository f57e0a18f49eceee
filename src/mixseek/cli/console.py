"""The two consoles every command writes to; lines are never wrapped, so logs and tests see them whole."""

from __future__ import annotations

from rich.console import Console


def stdout_console() -> Console:
    return Console(soft_wrap=True, highlight=False)


def stderr_console() -> Console:
    return Console(stderr=True, soft_wrap=True, highlight=False)
