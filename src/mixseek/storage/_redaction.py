"""No credential value reaches the database file, nor leaves it through a read. Every value written arrives as
a statement parameter on the connection `Connector.run` hands out, so wrapping it sees them all; a read-only
store's rows are redacted as fetched, before JSON is decoded."""

from __future__ import annotations

from typing import Any, cast

import duckdb

from mixseek.redaction import Redactor

Conn = duckdb.DuckDBPyConnection


class _RedactingConnection:
    """Forwards everything to `conn`; `execute` and `executemany` get redacted parameters."""

    def __init__(self, conn: Conn, redactor: Redactor) -> None:
        self._conn = conn
        self._redactor = redactor

    def execute(self, query: Any, parameters: Any = None) -> Conn:
        return self._conn.execute(query, self._redactor.value(parameters))

    def executemany(self, query: Any, parameters: Any = None) -> Conn:
        return self._conn.executemany(query, self._redactor.value(parameters))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class _RedactingReads(_RedactingConnection):
    """The rows fetched through what `execute` returns (this wrapper) are redacted."""

    def execute(self, query: Any, parameters: Any = None) -> Conn:
        self._conn.execute(query, parameters)
        return cast(Conn, self)

    def fetchone(self) -> tuple[Any, ...] | None:
        row = self._conn.fetchone()
        return None if row is None else self._redactor.value(row)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return [self._redactor.value(row) for row in self._conn.fetchall()]


def _wrapped(conn: Conn, wrapper: type[_RedactingConnection]) -> Conn:
    redactor = Redactor()
    return cast(Conn, wrapper(conn, redactor)) if redactor.active else conn


def redacting(conn: Conn) -> Conn:
    """`conn` for work that may write: its parameters redacted when a credential is set."""
    return _wrapped(conn, _RedactingConnection)


def redacted_reads(conn: Conn) -> Conn:
    """`conn` for a read-only store's work: its rows redacted when a credential is set."""
    return _wrapped(conn, _RedactingReads)
