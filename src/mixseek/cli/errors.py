"""Turning user-fixable failures into one line on stderr and exit code 2.

Besides mixseek's own errors, a file the system refuses (permissions, a
read-only or full disk, a directory where a file should be) is the user's
to fix too: `OSError`s that name a file are reported the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from jinja2 import TemplateError
from pydantic_ai.exceptions import AgentRunError, UserError
from rich.markup import escape

from mixseek.cli.console import stderr_console
from mixseek.errors import ConfigError, MixseekError

P = ParamSpec("P")
R = TypeVar("R")

EXIT_FAILURE = 2


def report(message: str) -> None:
    """Print one error line to stderr."""
    stderr_console().print(f"error: {escape(message)}")


def describe_os_error(exc: OSError) -> str:
    """`<file>: <reason>`, e.g. `/ws/logs: Read-only file system`."""
    return f"{exc.filename}: {exc.strerror or exc}"


def cli_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command body; bad input becomes one line and exit code 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except ConfigError as exc:
            report(str(exc))
            if exc.others:
                stderr_console().print(
                    f"({len(exc.others)} more problem(s); run 'mixseek config validate' to list all)"
                )
            raise typer.Exit(EXIT_FAILURE) from None
        except (MixseekError, TemplateError, AgentRunError, UserError) as exc:
            report(str(exc))
            raise typer.Exit(EXIT_FAILURE) from None
        except OSError as exc:
            if exc.filename is None or isinstance(exc, BrokenPipeError):
                raise
            report(describe_os_error(exc))
            raise typer.Exit(EXIT_FAILURE) from None

    return wrapper
