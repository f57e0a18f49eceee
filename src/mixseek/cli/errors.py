"""Turning user-fixable failures into one line on stderr and exit code 2."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from jinja2 import TemplateError
from rich.console import Console
from rich.markup import escape

from mixseek.errors import ConfigError, MixseekError

P = ParamSpec("P")
R = TypeVar("R")

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_FAILURE = 2

stderr = Console(stderr=True, soft_wrap=True, highlight=False)


def report(message: str) -> None:
    """Print one error line to stderr."""
    stderr.print(f"error: {escape(message)}")


def cli_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command body; bad input becomes one line and exit code 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except ConfigError as exc:
            report(str(exc))
            if exc.others:
                stderr.print(f"({len(exc.others)} more problem(s); run 'mixseek config validate' to list all)")
            raise typer.Exit(EXIT_FAILURE) from None
        except (MixseekError, TemplateError) as exc:
            report(str(exc))
            raise typer.Exit(EXIT_FAILURE) from None

    return wrapper
