"""Reading a workspace's DuckDB file the way another process would."""

from __future__ import annotations

from pathlib import Path

import duckdb


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    conn = duckdb.connect(str(db), read_only=True)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()
