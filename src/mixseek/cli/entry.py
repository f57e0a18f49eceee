"""The `mixseek` program: Ctrl-C at any moment ends it with exit 130 and one line on stderr (`loading_guard`
from the first statement, then `interrupts.run_guarded`)."""

from mixseek.cli.loading_guard import install, requested

install()

# everything below loads inside the guard
import gc  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from typing import NoReturn  # noqa: E402

from mixseek.cli.interrupts import (  # noqa: E402
    EXIT_INTERRUPTED,
    announce_interrupt,
    forget_handled_interrupts,
    run_guarded,
)

__all__ = ["leave", "main", "run_guarded"]


def _cli() -> None:
    from mixseek.cli.app import app

    app(prog_name="mixseek")


def main() -> NoReturn:
    """The `mixseek` command."""
    from mixseek.cli.json_stderr import use_json_stderr

    if requested(sys.argv[1:]):
        use_json_stderr()
    try:
        run_guarded(_cli)
    except SystemExit as exc:
        leave(exc.code)
    except KeyboardInterrupt:
        # a second Ctrl-C landed while the guard handled the first, before it could ignore it
        announce_interrupt()
        leave(EXIT_INTERRUPTED)


def leave(code: object) -> NoReturn:
    """Exit with `code`, not re-raising a handled interrupt. With Temporal's runtime started, skip
    finalization (its threads may abort it: temporalio/sdk-python#300); else the last (slow) collections."""
    forget_handled_interrupts()
    runtime = sys.modules.get("mixseek.orchestrator.temporal.sdk_runtime")
    if runtime is None or not runtime.started():
        gc.freeze()
        raise SystemExit(code)
    import logging

    if code is None or isinstance(code, int):
        status = code or 0
    else:
        sys.stderr.write(f"{code}\n")
        status = 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
