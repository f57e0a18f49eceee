"""What a Ctrl-C leaves behind: one line on stderr, exit code 130, no second interrupt during cleanup (one
landing in the cleanup or exit would become a traceback). Standard library only: `cli.entry` imports it before
the CLI's dependencies load."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

from mixseek.cli.loading_guard import NOTHING_STARTED
from mixseek.exit_codes import ExitCode

EXIT_INTERRUPTED = ExitCode.INTERRUPTED
INTERRUPTED = "interrupted"
"""The line of a command that runs no execution (`runs`, `ui`, `worker`, ...), once it has begun."""

_announced = False
_aftermath: str | Callable[[], str] = NOTHING_STARTED


def ignore_interrupts() -> None:
    """From now on Ctrl-C does nothing (the process is cleaning up to exit)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def say_on_interrupt(aftermath: str | Callable[[], str]) -> None:
    """From now on, an interrupt nothing announced is told by `aftermath`, asked when the interrupt comes."""
    global _aftermath
    _aftermath = aftermath


def announce_interrupt(line: str | None = None) -> None:
    """Print the one line telling what an interrupt left behind (default: `say_on_interrupt`'s); once only."""
    global _announced
    if _announced:
        return
    _announced = True
    if line is None:
        line = _aftermath if isinstance(_aftermath, str) else _aftermath()
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def run_guarded(body: Callable[[], object]) -> NoReturn:
    """Run `body` (a Typer app); a KeyboardInterrupt, or exit 130, becomes one line and exit code 130."""
    try:
        body()
    except KeyboardInterrupt:
        ignore_interrupts()
    except SystemExit as exc:
        ignore_interrupts()
        if exc.code != EXIT_INTERRUPTED:
            raise
    except Exception as exc:
        ignore_interrupts()
        if not caused_by_interrupt(exc):
            raise
    else:
        ignore_interrupts()
        sys.exit(0)
    announce_interrupt()
    sys.exit(EXIT_INTERRUPTED)


def forget_handled_interrupts() -> None:
    """Keep a handled Ctrl-C from killing the process at exit: CPython remembers one leaving code run from a
    string (as `dataclasses` defines methods), and running a string clears it."""
    exec("")


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a Ctrl-C is what this error wraps (an interrupt in `__set_name__` surfaces as RuntimeError)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
