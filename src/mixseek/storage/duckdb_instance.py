"""Every DuckDB instance mixseek opens, without extension autoloading: no network request at run time. ATTACH
of a SQLite file would otherwise download `sqlite_scanner`; with it off (and `TYPE duckdb`), such a file is
refused at once as one line naming it."""

from __future__ import annotations

import duckdb

NO_EXTENSIONS: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect` with extension autoloading off (an in-memory instance by default)."""
    return duckdb.connect(database, read_only=read_only, config=dict(NO_EXTENSIONS))
