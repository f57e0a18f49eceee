"""Ctrl-C while `mixseek` loads: exit 130 at once, with `interrupted: no execution was started`. Until a
command begins nothing has been opened or written, so the process may leave from the signal handler: a
`KeyboardInterrupt` would land in whichever library is importing, which may print, swallow or wrap it. A
command lifts the guard as it begins (`lift`). Only built-in modules are imported: `signal` would load
`enum`, lengthening the unguarded start, and `from __future__ import annotations` imports `__future__`.
With `--log-format json` the line is one JSON object, as every line on stderr then is."""

import _signal  # type: ignore[import-not-found]  # typeshed has no stub for the C module
import os
import sys
import time

NOTHING_STARTED = "interrupted: no execution was started"
EXIT_INTERRUPTED = 130
"""`ExitCode.INTERRUPTED`: `mixseek.exit_codes` is an `enum`, not loaded yet."""


def requested(argv: list[str]) -> bool:
    """Whether a command line asks for JSON stderr, read before the command parses it."""
    pair = ["--log-format", "json"]  # not itertools.pairwise: the guard imports nothing that is not loaded
    return "--log-format=json" in argv or any(argv[i : i + 2] == pair for i in range(len(argv)))


def _line() -> str:
    if not requested(sys.argv[1:]):
        return NOTHING_STARTED
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    return f'{{"at": "{at}+00:00", "level": "error", "message": "{NOTHING_STARTED}"}}'


def _leave(signum: int, frame: object) -> None:
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # a second Ctrl-C changes nothing
    try:
        os.write(2, (_line() + "\n").encode())
    finally:
        os._exit(EXIT_INTERRUPTED)


def install() -> None:
    """From now on, until a command begins, Ctrl-C ends the process at once with one line."""
    _signal.signal(_signal.SIGINT, _leave)


def lift() -> None:
    """A command begins: from now on Ctrl-C raises `KeyboardInterrupt`, which `asyncio.run` turns into a
    cancellation. A process that never installed the guard (a test's, a library's) keeps its handler."""
    if _signal.getsignal(_signal.SIGINT) is _leave:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
