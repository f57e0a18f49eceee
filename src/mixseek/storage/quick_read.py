"""One read of a store file from a short-lived process (`mixseek runs`), in the calling thread. No write
queue, idle-close thread or event loop; importing it loads neither asyncio nor the write path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from mixseek.storage._connection import Connector
from mixseek.storage.retry import RetryPolicy, run_retrying

T = TypeVar("T")


def read_once(
    path: Path, work: Callable[[duckdb.DuckDBPyConnection], T], *, retry: RetryPolicy | None = None
) -> T:
    """`work` run on the file at `path` opened read-only (never created nor upgraded), then closed."""
    connector = Connector(path, read_only=True, idle_close_seconds=0)
    try:
        return run_retrying(retry or RetryPolicy(), str(path), lambda: connector.run(work, transaction=False))
    finally:
        connector.close()
