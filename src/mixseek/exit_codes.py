"""The exit codes of the `mixseek` command, defined once (README "Exit codes").

Standard library only: the `mixseek` program's Ctrl-C guard (`cli.entry`) reads
`INTERRUPTED` before any dependency loads.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a script calling `mixseek` can tell from the exit status."""

    SUCCESS = 0
    PARTIAL_FAILURE = 1
    """Some teams failed and the others finished, or every team finished but a judgment failed."""
    FAILURE = 2
    """The command failed: input the user can fix (`mixseek.errors.InputError`, a file the system
    refuses) or a failure at run time (`mixseek.errors.RuntimeFailure`). One line on stderr says
    which; the README's contract gives both this one code."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT, as shells report it)."""
