"""No credential value reaches the database file, nor leaves it through a read.

Every value the store writes (model answers, message histories, error messages, configs,
summaries) arrives as a statement parameter, and every statement runs on the connection that
`Connector.run` hands out; wrapping that connection is the one place that sees them all.
Statement texts are mixseek's own SQL and are passed through unchanged.

What a read-only store reads (`runs show`/`export`, the dashboard) is redacted row by row as it
is fetched, before any JSON in it is decoded: a file written before a credential was set, or by
a version that missed an encoding of it, shows none of it either. Rows are flat, so this costs
a few substring tests per text cell, where redacting the objects built from them would walk
every one of their fields.
"""

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


class _RedactingReads:
    """Forwards everything to `conn`; the rows fetched through what `execute` returns (this
    wrapper, as DuckDB's `execute` returns its connection) are redacted."""

    def __init__(self, conn: Conn, redactor: Redactor) -> None:
        self._conn = conn
        self._redactor = redactor

    def execute(self, query: Any, parameters: Any = None) -> Conn:
        self._conn.execute(query, parameters)
        return cast(Conn, self)

    def fetchone(self) -> tuple[Any, ...] | None:
        row = self._conn.fetchone()
        return None if row is None else self._redactor.value(row)

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        return [self._redactor.value(row) for row in self._conn.fetchmany(size)]

    def fetchall(self) -> list[tuple[Any, ...]]:
        return [self._redactor.value(row) for row in self._conn.fetchall()]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def redacting(conn: Conn) -> Conn:
    """`conn` as it should be handed to work that may write: redacting when a credential is set."""
    redactor = Redactor()
    if not redactor.active:
        return conn
    return cast(Conn, _RedactingConnection(conn, redactor))


def redacted_reads(conn: Conn) -> Conn:
    """`conn` as it should be handed to a read-only store's work: its rows redacted when a
    credential is set."""
    redactor = Redactor()
    if not redactor.active:
        return conn
    return cast(Conn, _RedactingReads(conn, redactor))
