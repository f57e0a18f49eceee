"""What a Ctrl-C leaves behind: one line on stderr, exit code 130, no second interrupt during cleanup.

Standard library only (and `mixseek.exit_codes`, which is too): the `mixseek` program's guard
(`cli.entry`) imports it before the CLI's dependencies load. A command that knows more says it
(`announce_interrupt`: "interrupted: resume with: ..."), and the guard prints the plain line only
when nothing was said. Once an interrupt has been caught, further Ctrl-C are ignored: what is left
is a short cleanup, then the exit, and a second Ctrl-C landing in the middle of either would turn
it into a traceback.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

from mixseek.exit_codes import ExitCode

EXIT_INTERRUPTED = ExitCode.INTERRUPTED
INTERRUPTED = "interrupted"

_announced = False


def ignore_interrupts() -> None:
    """From now on Ctrl-C does nothing (the process is cleaning up to exit)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def announce_interrupt(line: str) -> None:
    """Print the one line that tells what an interrupt left behind; later calls print nothing."""
    global _announced
    if _announced:
        return
    _announced = True
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def run_guarded(body: Callable[[], object]) -> NoReturn:
    """Run `body` (which ends by raising SystemExit, as Typer apps do); a KeyboardInterrupt
    anywhere, or an exit with code 130, becomes one line and exit code 130."""
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
    announce_interrupt(INTERRUPTED)
    sys.exit(EXIT_INTERRUPTED)


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a Ctrl-C is what this error wraps.

    Python re-raises some exceptions as others: a KeyboardInterrupt that lands while a class body
    runs `__set_name__` (as an import defines its classes) surfaces as a RuntimeError whose cause
    is the interrupt."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
