"""Is the database file usable? Checked before an execution calls any model. DuckDB reads a block only when a
query needs it, so a damaged, read-only or full file opens fine and fails at the first save, after the round's
models were paid. `check_store` reads every block, loads every index and forces a checkpoint up front."""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

from mixseek.storage._connection import Connector
from mixseek.storage.retry import RetryPolicy, run_retrying
from mixseek.storage.schema import read_version

_PROBE_TABLE = "mixseek_write_probe"
_TABLES = (
    "SELECT table_name FROM duckdb_tables() "
    "WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name"
)
_COLUMNS = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND schema_name = 'main' AND table_name = ? ORDER BY column_index"
)


@dataclass(frozen=True)
class StoreCheck:
    """What `check_store` found in a usable file."""

    path: Path
    schema_version: int
    tables: int
    rows: int
    size_bytes: int
    free_bytes: int

    def describe(self) -> str:
        mib = 1024 * 1024
        return (
            f"{self.path}: readable and writable (schema version {self.schema_version}, "
            f"{self.rows} rows in {self.tables} tables, {self.size_bytes / mib:.1f} MiB; "
            f"{self.free_bytes / mib:.0f} MiB free on its disk)"
        )


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _read_everything(conn: duckdb.DuckDBPyConnection, *, touch_indexes: bool) -> tuple[int, int]:
    """Read every stored block and load every index; returns (tables, rows)."""
    names = [row[0] for row in conn.execute(_TABLES).fetchall()]
    rows = 0
    for name in names:
        table = _quoted(name)
        columns = [_quoted(row[0]) for row in conn.execute(_COLUMNS, [name]).fetchall()]
        # hash() needs every value, so no block is skipped thanks to statistics or zone maps
        query = f"SELECT count(*), bit_xor(hash({', '.join(columns)})) FROM {table}"
        counted = conn.execute(query).fetchone()
        count = int(counted[0]) if counted else 0
        rows += count
        if count and touch_indexes:
            _touch_indexes(conn, table, columns)
    return len(names), rows


def _touch_indexes(conn: duckdb.DuckDBPyConnection, table: str, columns: list[str]) -> None:
    """Rewrite one row with its own values and roll back: every index of the table is loaded."""
    sets = ", ".join(f"{c} = {c}" for c in columns)
    conn.begin()
    try:
        conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = (SELECT min(rowid) FROM {table})")
    finally:
        with contextlib.suppress(duckdb.Error):  # a failed update has ended the transaction already
            conn.rollback()


def check_store(path: Path, *, write: bool = True, retry: RetryPolicy | None = None) -> StoreCheck:
    """Open `path` (read-write unless not `write`), read all of it and write to it, or say why not."""
    connector = Connector(path, read_only=not write, idle_close_seconds=0)

    def work(conn: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
        tables, rows = _read_everything(conn, touch_indexes=write)
        if write:  # a real write (DuckDB skips an update to the same value), forced into the file
            conn.execute(f"CREATE OR REPLACE TABLE {_PROBE_TABLE} AS SELECT now() AS written_at")
            conn.execute(f"DROP TABLE {_PROBE_TABLE}")
            conn.execute("FORCE CHECKPOINT")
        return read_version(conn), tables, rows

    try:
        version, tables, rows = run_retrying(
            retry or RetryPolicy(), str(path), lambda: connector.run(work, transaction=False)
        )
    finally:
        connector.close()
    return StoreCheck(
        path=path,
        schema_version=version,
        tables=tables,
        rows=rows,
        size_bytes=path.stat().st_size,
        free_bytes=shutil.disk_usage(path.parent).free,
    )
