"""Rows of the final pairwise stage, each comparison stored with its usage (a resume does not pay twice)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import duckdb
from pydantic import BaseModel

import mixseek.storage._rows as rows
from mixseek.llm.model_string import teams_using
from mixseek.storage.models import ExecutionRecord
from mixseek.storage.pairwise_views import (
    JudgeBias,
    PairwiseComparison,
    PairwiseStanding,
    PairwiseView,
    judge_bias,
    pairwise_standings,
)

if TYPE_CHECKING:
    from mixseek.storage._round_writes import CallRow

Conn = duckdb.DuckDBPyConnection

_COMPARISON_COLUMNS = tuple(PairwiseComparison.model_fields)
_STANDING_COLUMNS = tuple(PairwiseStanding.model_fields)


def _insert(conn: Conn, table: str, execution_id: str, row: BaseModel, tail: str = "") -> None:
    names = tuple(type(row).model_fields)
    conn.execute(
        f"INSERT INTO {table} (execution_id, {', '.join(names)}) VALUES (?{', ?' * len(names)}){tail}",
        [execution_id, *(getattr(row, c) for c in names)],
    )


def insert_comparison(
    conn: Conn, execution_id: str, comparison: PairwiseComparison, calls: Sequence[CallRow]
) -> None:
    """Store one comparison (once: a pair stored already is left as it is) and its usage."""
    # the write path (and asyncio with its queue) loads here: `mixseek runs list` reads this module
    from mixseek.storage._round_writes import _insert_calls

    _insert_calls(conn, calls)
    _insert(conn, "pairwise_comparisons", execution_id, comparison, " ON CONFLICT DO NOTHING")


def replace_ranking(conn: Conn, execution_id: str, standings: Sequence[PairwiseStanding]) -> None:
    """The execution's pairwise ranking becomes `standings` (a resumed stage refits it)."""
    conn.execute("DELETE FROM pairwise_ranking WHERE execution_id = ?", [execution_id])
    for standing in standings:
        _insert(conn, "pairwise_ranking", execution_id, standing)


def read_comparisons(conn: Conn, execution_id: str) -> list[PairwiseComparison]:
    query = (
        f"SELECT {', '.join(_COMPARISON_COLUMNS)} FROM pairwise_comparisons "
        "WHERE execution_id = ? ORDER BY sequence, team_a, team_b"
    )
    return [PairwiseComparison.model_validate(r) for r in rows.dicts(conn, query, [execution_id])]


def read_pairwise(conn: Conn, record: ExecutionRecord) -> PairwiseView | None:
    """The pairwise stage of `record`'s execution (its settings where no summary says), None if none."""
    stored = (record.summary or {}).get("pairwise")
    comparisons = read_comparisons(conn, record.execution_id)
    if not isinstance(stored, Mapping) and not comparisons:
        return None
    if isinstance(stored, Mapping):
        meta = dict(stored)
    else:
        settings = record.config.get("pairwise")
        settings = settings if isinstance(settings, Mapping) else {}
        meta = {
            "status": "running" if record.status == "running" else "interrupted",
            "model": str(settings.get("model", "")),
            "schedule": str(settings.get("schedule", "")),
        }
    query = (
        f"SELECT {', '.join(_STANDING_COLUMNS)} FROM pairwise_ranking "
        "WHERE execution_id = ? ORDER BY rank, team_id"
    )
    ranking = [PairwiseStanding.model_validate(r) for r in rows.dicts(conn, query, [record.execution_id])]
    if comparisons:  # the submissions, for the judge's bias and the length-controlled ranking
        query = "SELECT team_id, round_number, submission_content FROM leader_board WHERE execution_id = ?"
        texts = {(t, r): text or "" for t, r, text in conn.execute(query, [record.execution_id]).fetchall()}
        meta["bias"] = _bias(record, str(meta.get("model", "")), ranking, comparisons, texts)
        meta["controlled"] = _controlled(record, ranking, comparisons, texts) if ranking else []
    meta.update(ranking=ranking, comparisons=comparisons)
    return PairwiseView.model_validate(meta)


def _controlled(
    record: ExecutionRecord,
    ranking: list[PairwiseStanding],
    cs: list[PairwiseComparison],
    texts: Mapping[tuple[str, int], str],
) -> list[PairwiseStanding]:
    """The length-controlled standings, refitted from the stored comparisons and submissions."""
    settings = record.config.get("pairwise")
    settings = settings if isinstance(settings, Mapping) else {}
    return pairwise_standings(
        cs,
        {s.team_id: (s.team_name, s.score_rank) for s in ranking},
        samples=int(settings.get("bootstrap_samples", 1000)),
        seed=int(settings.get("seed", 0)),
        texts=texts,
    )


def _bias(
    record: ExecutionRecord,
    model: str,
    ranking: list[PairwiseStanding],
    cs: list[PairwiseComparison],
    texts: Mapping[tuple[str, int], str],
) -> JudgeBias:
    """The judge's bias measured on the stored comparisons, the submissions' lengths and the team snapshot."""
    lengths = {key: len(text) for key, text in texts.items()}
    teams = record.config.get("teams")
    return judge_bias(cs, ranking, lengths, teams_using(model, teams if isinstance(teams, Mapping) else {}))
