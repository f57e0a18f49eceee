"""A command's arguments must be UTF-8 text: one that is not is refused with one line naming it. Python reads
a non-UTF-8 byte as a lone surrogate, which the store, logs, files and terminal cannot encode. Paths too:
Linux allows any byte, but mixseek keeps paths in UTF-8 stores, logs and exports."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import PurePath

from typer._click.core import ParameterSource
from typer._click.globals import get_current_context

from mixseek.config.os_strings import not_utf8
from mixseek.errors import InputError

SECRETS = frozenset({"token"})
"""Parameters whose value is a secret: their line says only that it is not UTF-8, not where."""


def refuse_undecodable(arguments: Mapping[str, object]) -> None:
    """An InputError naming the first of `arguments` that is not UTF-8 (by the name the user wrote)."""
    for name, value in arguments.items():
        for text in _texts(value):
            reason = not_utf8(text)
            if reason is not None:
                if name in SECRETS:
                    reason = "not UTF-8 text"
                raise InputError(f"{_shown_name(name)}: {reason}")


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, str | PurePath):
        yield str(value)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def _shown_name(name: str) -> str:
    """The parameter as the command line names it: `--workspace`, `PROMPT`, or `$VARIABLE` if from the env."""
    ctx = get_current_context(silent=True)
    if ctx is None:
        return name
    for param in ctx.command.params:
        if param.name != name:
            continue
        if ctx.get_parameter_source(name) is ParameterSource.ENVIRONMENT and isinstance(param.envvar, str):
            return param.envvar
        if param.param_type_name == "option":
            return max(param.opts, key=len)
        return param.metavar or name.upper()
    return name
