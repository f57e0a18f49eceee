"""One read of a store file from a short-lived process: `mixseek runs list|show|export`.

A command that reads once and exits needs none of what `AggregationStore` keeps for a long-lived
one: its write queue, its idle-close thread, an event loop to run the work in a worker thread.
This module runs the read in the calling thread, through the same connection (`_connector`:
read-only attach, schema check, errors naming the file) and the same retries past another
process's lock (`retry`), then releases the file. Importing it loads neither asyncio nor the
store's write path.
"""

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
    """`work` run on the file at `path` opened read-only (never created nor upgraded), as
    `AggregationStore(path, read_only=True)` would run it; the file is closed on return."""
    connector = Connector(path, read_only=True, idle_close_seconds=0)
    try:
        return run_retrying(retry or RetryPolicy(), str(path), lambda: connector.run(work, transaction=False))
    finally:
        connector.close()
