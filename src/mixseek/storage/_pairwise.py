"""Rows of the final pairwise stage (schema migration 5): writing and reading them on a connection.

A comparison is stored with the usage of the two requests that judged it, in one transaction:
a resumed stage finds it done and paid for, and does not ask again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import duckdb

import mixseek.storage._rows as rows
from mixseek.storage.models import ExecutionRecord
from mixseek.storage.pairwise_views import PairwiseComparison, PairwiseStanding, PairwiseView

if TYPE_CHECKING:
    from mixseek.storage._round_writes import CallRow

Conn = duckdb.DuckDBPyConnection

_COMPARISON_COLUMNS = tuple(PairwiseComparison.model_fields)
_STANDING_COLUMNS = tuple(PairwiseStanding.model_fields)


def insert_comparison(
    conn: Conn, execution_id: str, comparison: PairwiseComparison, calls: Sequence[CallRow]
) -> None:
    """Store one comparison (once: a pair stored already is left as it is) and its usage."""
    # the write path (and asyncio with its queue) loads here: `mixseek runs list` reads this module
    from mixseek.storage._round_writes import _insert_calls

    _insert_calls(conn, calls)
    names = ", ".join(_COMPARISON_COLUMNS)
    marks = ", ".join("?" for _ in _COMPARISON_COLUMNS)
    conn.execute(
        f"INSERT INTO pairwise_comparisons (execution_id, {names}) VALUES (?, {marks}) "
        "ON CONFLICT DO NOTHING",
        [execution_id, *(getattr(comparison, c) for c in _COMPARISON_COLUMNS)],
    )


def replace_ranking(conn: Conn, execution_id: str, standings: Sequence[PairwiseStanding]) -> None:
    """The execution's pairwise ranking becomes `standings` (a resumed stage refits it)."""
    conn.execute("DELETE FROM pairwise_ranking WHERE execution_id = ?", [execution_id])
    names = ", ".join(_STANDING_COLUMNS)
    marks = ", ".join("?" for _ in _STANDING_COLUMNS)
    for standing in standings:
        conn.execute(
            f"INSERT INTO pairwise_ranking (execution_id, {names}) VALUES (?, {marks})",
            [execution_id, *(getattr(standing, c) for c in _STANDING_COLUMNS)],
        )


def read_comparisons(conn: Conn, execution_id: str) -> list[PairwiseComparison]:
    query = (
        f"SELECT {', '.join(_COMPARISON_COLUMNS)} FROM pairwise_comparisons "
        "WHERE execution_id = ? ORDER BY sequence, team_a, team_b"
    )
    return [PairwiseComparison.model_validate(r) for r in rows.dicts(conn, query, [execution_id])]


def read_ranking(conn: Conn, execution_id: str) -> list[PairwiseStanding]:
    query = (
        f"SELECT {', '.join(_STANDING_COLUMNS)} FROM pairwise_ranking "
        "WHERE execution_id = ? ORDER BY rank, team_id"
    )
    return [PairwiseStanding.model_validate(r) for r in rows.dicts(conn, query, [execution_id])]


def _stage_settings(config: Mapping[str, Any]) -> Mapping[str, Any]:
    settings = config.get("pairwise")
    return settings if isinstance(settings, Mapping) else {}


def read_pairwise(conn: Conn, record: ExecutionRecord) -> PairwiseView | None:
    """The stage of `record`'s execution: how it went from the stored summary (or, before there is
    one, from its settings and the execution's status), comparisons and ranking from their tables.
    None when the execution had no pairwise stage."""
    stored = (record.summary or {}).get("pairwise")
    comparisons = read_comparisons(conn, record.execution_id)
    if not isinstance(stored, Mapping) and not comparisons:
        return None
    ranking = read_ranking(conn, record.execution_id)
    if isinstance(stored, Mapping):
        meta = dict(stored)
    else:
        settings = _stage_settings(record.config)
        meta = {
            "status": "running" if record.status == "running" else "interrupted",
            "model": str(settings.get("model", "")),
            "schedule": str(settings.get("schedule", "")),
        }
    meta.update(ranking=ranking, comparisons=comparisons)
    return PairwiseView.model_validate(meta)
