"""The two consoles every command writes to; lines are never wrapped, so logs and tests see them whole. rich
loads with the first console made, so commands printing only plain lines (`print_line`) stay quick."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer

from mixseek.redaction import Redactor
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from rich.console import Console

    from mixseek.cli.safe_console import SafeConsole

__all__ = ["SafeConsole", "print_line", "silence_library_banners", "stderr_console", "stdout_console"]


def __getattr__(name: str) -> Any:
    if name == "SafeConsole":  # where it was defined before it moved out with rich
        from mixseek.cli.safe_console import SafeConsole

        return SafeConsole
    raise AttributeError(f"module 'mixseek.cli.console' has no attribute {name!r}")


def print_line(text: str, *, err: bool = False) -> None:
    """One line of plain text, as safe as a console's: no control character, no credential."""
    typer.echo(Redactor().text(strip_controls(text)), err=err)


def stdout_console() -> Console:
    from mixseek.cli.safe_console import SafeConsole

    return SafeConsole(soft_wrap=True, highlight=False)


def stderr_console() -> Console:
    from mixseek.cli.safe_console import SafeConsole

    return SafeConsole(stderr=True, soft_wrap=True, highlight=False)


def silence_library_banners() -> None:
    """No pydantic-ai first-run banner (in a clone, into the live table), by environment: nothing imported."""
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
