"""Errors raised by the store.

Constraint violations and other DuckDB errors caused by the data being
written (a score of 150, malformed JSON) are raised as the original
`duckdb.Error` subclasses: they are programming errors of the caller, not
conditions a user can fix.
"""

from __future__ import annotations

from mixseek.errors import MixseekError


class StorageError(MixseekError):
    """The database file cannot be used as asked."""


class SchemaVersionError(StorageError):
    """The file's schema version does not match what this code can use."""


class StoreBusyError(StorageError):
    """Another process kept the database file locked through every retry."""


class RecordNotFoundError(StorageError, LookupError):
    """An update named an execution or round that is not stored."""
