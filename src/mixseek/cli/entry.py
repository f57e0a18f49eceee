"""The `mixseek` program: Ctrl-C at any moment ends it with exit code 130 and one line on stderr.

This module imports only the standard library and `cli.interrupts` (standard library too), so the
guard is in place before the CLI's dependencies load: a Ctrl-C while they import gets the same
line instead of a traceback.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from mixseek.cli.interrupts import run_guarded

__all__ = ["leave", "main", "run_guarded"]


def _cli() -> None:
    from mixseek.cli.app import app

    app(prog_name="mixseek")


def main() -> NoReturn:
    """The `mixseek` command."""
    try:
        run_guarded(_cli)
    except SystemExit as exc:
        leave(exc.code)


def leave(code: object) -> NoReturn:
    """Exit with `code` (as `SystemExit(code)` would).

    A process that started the Temporal SDK's runtime (`exec --engine temporal`, `worker`) ends
    without the interpreter's finalization, once its output is flushed: the runtime's threads may
    call into Python while it shuts down, which aborts the process with SIGABRT after its work and
    output were done (temporalio/sdk-python#300).

    Any other process ends normally (exit handlers, flushes, module cleanup), less the
    interpreter's last cyclic garbage collections: what is alive now is frozen out of them. They
    would walk every object the imports made, typer's, pydantic's and DuckDB's included (40,000 for
    `runs list`), which took longer than the quick commands' own work; the memory goes back to
    the system with the process."""
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
