"""One DuckDB connection per store, opened on demand and closed after `idle_close_seconds` idle: kept open
through a burst (an open costs ~30 ms at 640k rows), closed between rounds so that other processes can open
the file. `checkpoint=True` commits straight into the file: a full disk fails the commit, not a later one."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

import mixseek.storage._readers as readers
import mixseek.storage._writers as writers
from mixseek.storage._redaction import redacted_reads, redacting
from mixseek.storage.errors import SchemaVersionError, StorageError, is_query_interrupted, store_problem
from mixseek.storage.retry import is_transient
from mixseek.storage.schema import check_schema, migrate

T = TypeVar("T")


# Two stores in one process may open a new file at the same moment; only one may migrate it.
_MIGRATION_LOCK = threading.Lock()


class Connector:
    def __init__(self, path: Path, *, read_only: bool, idle_close_seconds: float) -> None:
        if idle_close_seconds < 0:
            raise ValueError(f"idle_close_seconds must be >= 0, got {idle_close_seconds}")
        self.path = path
        self.read_only = read_only
        self.idle_close_seconds = idle_close_seconds
        self._lock = threading.Lock()
        self._conn: duckdb.DuckDBPyConnection | None = None
        self._deadline = 0.0
        self._closer: threading.Thread | None = None
        self.opened = 0  # how many times a connection was opened (for tests and benchmarks)

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    def run(
        self, work: Callable[[duckdb.DuckDBPyConnection], T], *, transaction: bool, checkpoint: bool = False
    ) -> T:
        """Run `work` on the connection, in one transaction if asked (`checkpoint`: into the file)."""
        with self._lock:
            try:
                conn = self._conn if self._conn is not None else self._open()
                try:
                    if not transaction:  # a read-only store's reads show no credential either
                        return work(redacted_reads(conn) if self.read_only else conn)
                    conn.begin()
                    try:
                        result = work(redacting(conn))  # writes: no credential reaches the file
                        if checkpoint:
                            _commit_into_file(conn)
                        else:
                            conn.commit()
                    except BaseException:
                        self._rollback(conn)
                        raise
                    return result
                finally:
                    self._after_use()
            except duckdb.Error as exc:
                problem = None if is_transient(exc) else store_problem(exc, self.path)
                if problem is None:
                    raise
                self._close_locked(quiet=True)
                raise problem from exc
            except RuntimeError as exc:
                # DuckDB turns a Ctrl-C during a query in the main thread into this error
                if not is_query_interrupted(exc):
                    raise
                raise KeyboardInterrupt from None

    def close(self) -> None:
        """Release the file; a failure to write it out is a `StorageError` naming it (released anyway)."""
        with self._lock:
            try:
                self._close_locked()
            except duckdb.Error as exc:
                problem = store_problem(exc, self.path)
                if problem is None:
                    detail = " ".join(str(exc).split())
                    problem = StorageError(f"{self.path}: cannot close the database file ({detail})")
                raise problem from exc

    # -- internals; the caller holds self._lock ---------------------------------

    def _open(self) -> duckdb.DuckDBPyConnection:
        if self.read_only and not self.path.exists():
            raise StorageError(f"{self.path}: no database file to read")
        if self.path.is_dir():
            raise StorageError(f"{self.path}: is a directory, not a database file")
        conn = readers.attach(self.path) if self.read_only else writers.attach(self.path)
        try:
            if self.read_only:
                check_schema(conn, str(self.path))
            else:
                conn.execute("SET TimeZone = 'UTC'")
                with _MIGRATION_LOCK:
                    migrate(conn, str(self.path))
        except SchemaVersionError as exc:
            self._release(conn)
            # an upgrade that failed on the disk (full, read-only) is a problem of the file
            cause = exc.__cause__
            problem = store_problem(cause, self.path) if isinstance(cause, duckdb.Error) else None
            if problem is None:
                raise
            raise problem from cause
        except BaseException:
            self._release(conn)
            raise
        self._conn = conn
        self.opened += 1
        return conn

    def _rollback(self, conn: duckdb.DuckDBPyConnection) -> None:
        try:
            conn.rollback()
        except duckdb.Error:
            # The connection is in an unknown state; start afresh next time.
            self._close_locked(quiet=True)

    def _after_use(self) -> None:
        if self._conn is None:
            return
        if self.idle_close_seconds == 0:
            self._close_locked()
            return
        self._deadline = time.monotonic() + self.idle_close_seconds
        if self._closer is None:
            self._closer = threading.Thread(
                target=self._close_when_idle, name="mixseek-store-closer", daemon=True
            )
            self._closer.start()

    def _close_when_idle(self) -> None:
        while True:
            with self._lock:
                remaining = self._deadline - time.monotonic()
                if self._conn is None or remaining <= 0:
                    self._closer = None
                    # nobody to report a failed close to: committed work is safe in the WAL
                    self._close_locked(quiet=True)
                    return
            time.sleep(remaining)

    def _close_locked(self, *, quiet: bool = False) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            self._release(conn)
        except duckdb.Error:
            if not quiet:
                raise

    def _release(self, conn: duckdb.DuckDBPyConnection) -> None:
        if self.read_only:
            readers.detach(conn)
        else:
            writers.detach(conn, self.path)


# settings by which any commit checkpoints, skipping the log; the instance's, so set back at once
_COMMIT_INTO_FILE = {"checkpoint_threshold": "'0b'", "auto_checkpoint_skip_wal_threshold": "0"}


def _commit_into_file(conn: duckdb.DuckDBPyConnection) -> None:
    """Commit the open transaction through a checkpoint of the file, not through its log."""
    for name, value in _COMMIT_INTO_FILE.items():
        conn.execute(f"SET {name} = {value}")
    try:
        conn.commit()
    finally:
        for name in _COMMIT_INTO_FILE:
            with contextlib.suppress(duckdb.Error):  # a failed checkpoint invalidated the instance
                conn.execute(f"RESET {name}")
