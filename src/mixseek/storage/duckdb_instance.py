"""Every DuckDB instance mixseek opens, opened one way: without DuckDB's extension autoloading.

DuckDB loads an extension by itself when a statement needs one, and downloads it first when it is
not installed: ATTACH of a file that starts like a SQLite database, say, fetches `sqlite_scanner`
from the network. mixseek uses no extension and makes no network request at run time, so each
instance is opened with `autoinstall_known_extensions` and `autoload_known_extensions` off, and the
store attaches its file `(TYPE duckdb)` (`_readers`, `_writers`), which no extension is asked to
read: such a file is refused at once, as one line naming it (`errors.store_problem`), instead of
waiting on a download or attaching a foreign database as if it were the store.
"""

from __future__ import annotations

import duckdb

NO_EXTENSIONS: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect` with extension autoloading off (an in-memory instance by default)."""
    return duckdb.connect(database, read_only=read_only, config=dict(NO_EXTENSIONS))
