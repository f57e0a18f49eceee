"""The engine's log records in `logs/mixseek.log`, redacted (not the last resort's tracebacks on stderr)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from mixseek.redaction import RedactingFormatter
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from mixseek.config.workspace import Workspace

LOGGER = "mixseek"


def _json_log_formatter() -> logging.Formatter:
    """One JSON object a line: at, level, logger, message, exception, and the `extra=` fields."""
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        "{asctime}{levelname}{name}{message}",
        style="{",
        rename_fields={"asctime": "at", "levelname": "level", "name": "logger", "exc_info": "exception"},
        json_ensure_ascii=False,
    )


class _LogFileHandler(logging.FileHandler):
    """logs/mixseek.log; a line it cannot write (a full disk) is dropped, not a traceback on stderr each."""

    def handleError(self, record: logging.LogRecord) -> None:
        return


def file_logging(workspace: Workspace, log_format: str) -> logging.Handler:
    """Add the workspace's log file (`text` or `json` lines) to the `mixseek` logger; returns its handler."""
    workspace.logs.mkdir(parents=True, exist_ok=True)
    handler = _LogFileHandler(workspace.logs / "mixseek.log", encoding="utf-8")
    handler.setFormatter(
        RedactingFormatter(
            _json_log_formatter()
            if log_format == "json"
            else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        )
    )
    root = logging.getLogger(LOGGER)
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    return handler


class _TerminalFormatter(RedactingFormatter):
    """A record as a terminal may show it: redacted, then without escape sequences."""

    def format(self, record: logging.LogRecord) -> str:
        return strip_controls(super().format(record))


def _stderr_logging() -> logging.Handler:
    import sys

    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_TerminalFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s")))
    logging.getLogger(LOGGER).addHandler(handler)
    return handler


@contextmanager
def engine_logs(workspace: Workspace, *, log_format: str = "text", verbose: bool = False) -> Iterator[None]:
    """The `mixseek` logger's records to the log file (and warnings with `verbose` to stderr) meanwhile."""
    with ExitStack() as stack:
        stack.callback(_remove, file_logging(workspace, log_format))
        if verbose:
            stack.callback(_remove, _stderr_logging())
        yield


def _remove(handler: logging.Handler) -> None:
    logging.getLogger(LOGGER).removeHandler(handler)
    handler.close()
