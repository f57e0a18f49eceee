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


def longest_common_run(a: str, b: str) -> int:
    """The length of the longest substring `a` and `b` share (dynamic programming)."""
    best = 0
    previous = [0] * (len(b) + 1)
    for char in a:
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, start=1):
            if char == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best
