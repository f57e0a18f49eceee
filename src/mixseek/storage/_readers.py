"""Read-only opens of a store file, attached to a kept in-memory DuckDB instance.
`duckdb.connect(read_only=True)` builds a whole instance each time (~20 ms, and slow first queries); attaching
to an idle one reads the file just as fresh and locks it just as briefly."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import duckdb

from mixseek.storage.duckdb_instance import connect

IDLE_KEPT = 2  # a dashboard's page and its live stream; more concurrent reads build their own

ALIAS = "store"
_HOME = "memory"  # the in-memory instance's own database

_idle: list[duckdb.DuckDBPyConnection] = []
_lock = threading.Lock()


def _forget_idle() -> None:
    # a forked child must not use its parent's DuckDB instances (nor close them)
    global _idle
    _idle = []


os.register_at_fork(after_in_child=_forget_idle)


def _instance() -> duckdb.DuckDBPyConnection:
    with _lock:
        if _idle:
            return _idle.pop()
    conn = connect()
    conn.execute("SET TimeZone = 'UTC'")
    return conn


def _idle_or_close(conn: duckdb.DuckDBPyConnection) -> None:
    with _lock:
        if len(_idle) < IDLE_KEPT:
            _idle.append(conn)
            return
    conn.close()


def attach(path: Path) -> duckdb.DuckDBPyConnection:
    """A connection reading the file at `path` (read-only), its default database; `detach` it."""
    conn, quoted = _instance(), str(path).replace("'", "''")
    try:
        # TYPE duckdb: a file of another format (SQLite) is refused, not handed to an extension
        conn.execute(f"ATTACH '{quoted}' AS {ALIAS} (TYPE duckdb, READ_ONLY)")
    except BaseException:
        _idle_or_close(conn)  # nothing attached: the instance is as it was
        raise
    try:
        conn.execute(f"USE {ALIAS}")
    except BaseException:
        conn.close()
        raise
    return conn


def detach(conn: duckdb.DuckDBPyConnection) -> None:
    """Close the file `attach` opened; the instance waits for the next read (or is closed)."""
    try:
        conn.execute(f"USE {_HOME}")
        conn.execute(f"DETACH {ALIAS}")
    except BaseException:
        conn.close()  # e.g. a transaction left open: closing the instance closes the file
        raise
    _idle_or_close(conn)
