"""No credential value reaches the database file: every statement's parameters are redacted.

Every value the store writes (model answers, message histories, error messages, configs,
summaries) arrives as a statement parameter, and every statement runs on the connection that
`Connector.run` hands out; wrapping that connection is the one place that sees them all.
Statement texts are mixseek's own SQL and are passed through unchanged.
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


def redacting(conn: Conn) -> Conn:
    """`conn` as it should be handed to work that may write: redacting when a credential is set."""
    redactor = Redactor()
    if not redactor.active:
        return conn
    return cast(Conn, _RedactingConnection(conn, redactor))
