"""Failures as one line on stderr and an exit code, never a traceback: input the user can fix (`InputError`,
a template, an argument pydantic-ai refuses, an `OSError` naming a file) or a failure at run time, both 2."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

import typer

from mixseek.cli.console import print_line
from mixseek.cli.utf8_arguments import refuse_undecodable
from mixseek.errors import ConfigError, InputError, MixseekError, RuntimeFailure
from mixseek.exit_codes import ExitCode

P = ParamSpec("P")
R = TypeVar("R")

EXIT_FAILURE = ExitCode.FAILURE

EXIT_CODES: dict[type[BaseException], ExitCode] = {
    # the user's to fix
    InputError: ExitCode.FAILURE,
    OSError: ExitCode.FAILURE,  # only one that names a file: see `exit_code_for`
    # failed while running
    RuntimeFailure: ExitCode.FAILURE,
    # raised as the root itself (by a plugin): a failure all the same
    MixseekError: ExitCode.FAILURE,
}
"""Exit code by error class; an error takes the entry of the nearest class in its MRO."""

LIBRARY_EXIT_CODES: dict[str, ExitCode] = {
    # the user's to fix: a Jinja2 template, an argument pydantic-ai refuses
    "jinja2.exceptions.TemplateError": ExitCode.FAILURE,
    "pydantic_ai.exceptions.UserError": ExitCode.FAILURE,
    # failed while running: a model run
    "pydantic_ai.exceptions.AgentRunError": ExitCode.FAILURE,
}
"""Library error classes by their full name, so that no command imports pydantic-ai or Jinja2 to know them."""


def _code_of(cls: type) -> ExitCode | None:
    code = EXIT_CODES.get(cls)
    return code if code is not None else LIBRARY_EXIT_CODES.get(f"{cls.__module__}.{cls.__qualname__}")


def exit_code_for(exc: BaseException) -> ExitCode | None:
    """The exit code `exc` ends a command with, or None for an error that is a bug (a traceback)."""
    if isinstance(exc, OSError) and (exc.filename is None or isinstance(exc, BrokenPipeError)):
        return None
    return next((code for cls in type(exc).__mro__ if (code := _code_of(cls)) is not None), None)


def report(message: str) -> None:
    """Print one error line to stderr."""
    print_line(f"error: {message}", err=True)


def refuse_problems(problems: Sequence[ConfigError]) -> None:
    """Each problem on its own line, then exit 2, before anything starts."""
    for problem in problems:
        report(str(problem))
    if problems:
        raise typer.Exit(EXIT_FAILURE)


def warn_problems(problems: Sequence[ConfigError]) -> None:
    """Each problem as a `warning:` line on stderr; the command goes on."""
    for problem in problems:
        print_line(f"warning: {problem}", err=True)


def describe_os_error(exc: OSError) -> str:
    """`<file>: <reason>`, e.g. `/ws/logs: Read-only file system`."""
    return f"{exc.filename}: {exc.strerror or exc}"


def cli_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command body; a known failure (a non-UTF-8 argument too) becomes one line and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            refuse_undecodable(kwargs)
            return fn(*args, **kwargs)
        except Exception as exc:
            code = exit_code_for(exc)
            if code is None:
                raise
            report(describe_os_error(exc) if isinstance(exc, OSError) else str(exc))
            if isinstance(exc, ConfigError) and exc.others:
                print_line(
                    f"({len(exc.others)} more problem(s); run 'mixseek config validate' to list all)",
                    err=True,
                )
            raise typer.Exit(code) from None

    return wrapper
