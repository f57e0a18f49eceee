"""The `mixseek` program: Ctrl-C at any moment ends it with exit code 130 and one line on stderr.

This module imports only the standard library and `cli.interrupts` (standard library too), so the
guard is in place before the CLI's dependencies load: a Ctrl-C while they import gets the same
line instead of a traceback.
"""

from __future__ import annotations

from typing import NoReturn

from mixseek.cli.interrupts import run_guarded

__all__ = ["main", "run_guarded"]


def _cli() -> None:
    from mixseek.cli.app import app

    app(prog_name="mixseek")


def main() -> NoReturn:
    """The `mixseek` command."""
    run_guarded(_cli)
