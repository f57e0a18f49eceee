"""Ctrl-C while `mixseek` loads: exit 130 at once, with `interrupted: no execution was started`.

The program's entry module (`cli.entry`) installs this guard as its first statement; before it, a
Ctrl-C is the interpreter's own (a `KeyboardInterrupt` traceback). Until a command begins, nothing
has been opened, written or started, so the process may leave from the signal handler itself:
a `KeyboardInterrupt` raised instead would land inside whichever module is importing (typer,
pydantic, ...), where a library's own handlers may print it, swallow it or wrap it in another
error. A command lifts the guard as it begins (`lift`, from `cli.app`): from then on a Ctrl-C
raises `KeyboardInterrupt` in it, to clean up and say what it left behind (`cli.interrupts`).

Nothing is imported here that the interpreter has not loaded before any of mixseek runs (`os`,
`_signal`): the `signal` module wraps `_signal` with enums, and loading `enum` for it would
lengthen the unguarded start by milliseconds (bench/interrupt_window.py measures it). Nor
`from __future__ import annotations`, which imports the `__future__` module.
"""

import _signal  # type: ignore[import-not-found]  # typeshed has no stub for the C module
import os

NOTHING_STARTED = "interrupted: no execution was started"
EXIT_INTERRUPTED = 130
"""`ExitCode.INTERRUPTED`: `mixseek.exit_codes` is an `enum`, not loaded yet."""


def _leave(signum: int, frame: object) -> None:
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # a second Ctrl-C changes nothing
    try:
        os.write(2, (NOTHING_STARTED + "\n").encode())
    finally:
        os._exit(EXIT_INTERRUPTED)


def install() -> None:
    """From now on, until a command begins, Ctrl-C ends the process at once with one line."""
    _signal.signal(_signal.SIGINT, _leave)


def lift() -> None:
    """A command begins: from now on Ctrl-C raises `KeyboardInterrupt` (Python's own handler,
    which `asyncio.run` recognises and turns into a cancellation of its task). Only the guard is
    replaced: a process that never installed it (a test's, a library user's) keeps its handler."""
    if _signal.getsignal(_signal.SIGINT) is _leave:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
