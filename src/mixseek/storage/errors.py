"""Errors raised by the store; a DuckDB error of the file itself becomes one line naming the file. Errors
caused by the data written (a constraint violation) stay `duckdb.Error`: the caller's bug."""

from __future__ import annotations

from pathlib import Path

import duckdb

from mixseek.errors import RuntimeFailure

QUERY_INTERRUPTED = "Query interrupted"  # DuckDB's RuntimeError for a Ctrl-C during a query


def is_query_interrupted(exc: BaseException) -> bool:
    """Whether `exc` is DuckDB's form of a Ctrl-C: the caller hands it on as the interrupt it was."""
    return type(exc) is RuntimeError and str(exc) == QUERY_INTERRUPTED


class StorageError(RuntimeFailure):
    """The database file cannot be used as asked (a failure at run time, not the input's fault)."""


class SchemaVersionError(StorageError):
    """The file's schema version does not match what this code can use."""


class StoreBusyError(StorageError):
    """Another process kept the database file locked through every retry."""


class StoreDamagedError(StorageError):
    """The database file (or its write-ahead log) is corrupt: its content cannot be trusted."""


class StoreUnwritableError(StorageError):
    """The database file cannot be opened or written: permissions, a read-only or full disk."""


class RecordNotFoundError(StorageError, LookupError):
    """An update named an execution or round that is not stored."""


_PREFIXES = ("IO Error: ", "TransactionContext Error: ", "FATAL Error: ", "INTERNAL Error: ")
_MOVE_AWAY = "move it away (or restore a backup) to start a new store"
# DuckDB's own words for a damaged file, in the order they are checked
_DAMAGED_WAL = ("corrupt wal file",)
_DAMAGED_FILE = ("corrupt database file", "could not read enough bytes", "not a valid duckdb database")
_UNWRITABLE = ("no space left on device", "read-only file system", "permission denied", "not permitted")
_SQLITE_HEADER = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    """Whether the file at `path` starts as a SQLite database does."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
    except OSError:
        return False


def _detail(exc: BaseException) -> str:
    """DuckDB's message on one line, without its error-class prefixes."""
    text = " ".join(str(exc).split())
    stripped = True
    while stripped:
        stripped = False
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text, stripped = text[len(prefix) :], True
    for marker in ("Failed to commit: ", "Failed to create checkpoint because of error: "):
        text = text.replace(marker, "")
    return text


def store_problem(exc: duckdb.Error, path: Path) -> StorageError | None:
    """The file's problem behind a DuckDB error, one line naming the file; None if not about the file."""
    detail = _detail(exc)
    low = detail.lower()
    if any(marker in low for marker in _DAMAGED_WAL):
        wal = path.with_name(path.name + ".wal")
        return StoreDamagedError(
            f"{wal}: the database's write-ahead log is damaged ({detail}); moving it away opens "
            "the database without the writes it held"
        )
    if "not a valid duckdb database" in low:
        if _is_sqlite(path):
            return StoreDamagedError(f"{path}: a SQLite database, not a DuckDB database file; {_MOVE_AWAY}")
        return StoreDamagedError(f"{path}: not a DuckDB database file (damaged?); {_MOVE_AWAY}")
    if any(marker in low for marker in _DAMAGED_FILE):
        return StoreDamagedError(f"{path}: the database file is damaged ({detail}); {_MOVE_AWAY}")
    if "no space left on device" in low:
        return StoreUnwritableError(f"{path}: cannot write the database: no space left on device")
    if any(marker in low for marker in _UNWRITABLE):
        return StoreUnwritableError(f"{path}: cannot write the database ({detail})")
    if isinstance(exc, duckdb.IOException | duckdb.PermissionException | duckdb.FatalException):
        return StorageError(f"{path}: cannot use the database file ({detail})")
    if isinstance(exc, duckdb.SerializationException | duckdb.InternalException):
        return StorageError(f"{path}: DuckDB cannot read the database file ({detail})")
    if isinstance(exc, duckdb.TransactionException) and "replaying wal" in low:
        wal = path.with_name(path.name + ".wal")
        return StoreDamagedError(f"{wal}: the database's write-ahead log cannot be replayed ({detail})")
    return None
