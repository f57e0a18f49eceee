"""A command's arguments must be UTF-8 text: one that is not is refused with one line naming it.

Python reads a byte that is not UTF-8 in an argument (`mixseek exec $'caf\\xe9'`) or an
environment variable as a lone surrogate, which the first UTF-8 sink it reaches cannot encode:
the store (DuckDB failed with "surrogates not allowed"), a log, a JSON or TOML file, the
terminal. Paths are refused as well, although Linux allows any byte in a file name: mixseek keeps
paths in its store, logs and exports, which are UTF-8, so it takes only UTF-8 paths.
"""

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
    """Raise an InputError naming the first of `arguments` (a command's, by parameter name) that
    is not UTF-8 text, as the user wrote it: `PROMPT`, `--reference` or the environment variable."""
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
    """The parameter as the command line names it: `--workspace`, `PROMPT`, or `$VARIABLE` when
    its value came from the environment."""
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
