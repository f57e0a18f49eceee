"""Read-only opens of a store file: attached to an in-memory DuckDB instance kept for the purpose.

Why not `duckdb.connect(file, read_only=True)`: each call builds a whole DuckDB instance (the
catalog of DuckDB's own functions, its threads) before it reads a byte of the file, about 20 ms,
and the first queries of a new instance run slower: opening the file and reading an execution
page's outline of 64 teams x 10 rounds took 67 ms that way, 23 ms attached to a kept instance
(`bench/ui_render.py` times the whole page). A read-only store instead attaches its file
(`ATTACH ... (READ_ONLY)`) to an idle in-memory instance and detaches it when it closes. The file
is opened, share-locked, read and closed just as through a connection of its own: a writer in
another process waits no longer, and the next attach reads the file anew (the instance keeps
nothing of it: a new instance warmed up on another file reads it as fast).

Each open store has an instance to itself (an instance attaches a file once); a few idle ones
are kept. An instance that cannot be cleaned (its detach failed) is closed instead, which closes
the file with it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import duckdb

from mixseek.storage.duckdb_instance import connect

IDLE_KEPT = 2
"""Idle instances kept for the next reads (a dashboard's page and its live stream, say); more
concurrent reads build instances of their own, closed after use."""

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


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def attach(path: Path) -> duckdb.DuckDBPyConnection:
    """A connection reading the file at `path` (read-only), its default database; `detach` it."""
    conn = _instance()
    try:
        # TYPE duckdb: a file of another format (SQLite) is refused, not handed to an extension
        conn.execute(f"ATTACH {_literal(str(path))} AS {ALIAS} (TYPE duckdb, READ_ONLY)")
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
