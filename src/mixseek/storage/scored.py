"""Chosen executions' scores (overall, per metric, per judge) and config snapshots, for `judges calibrate`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from mixseek.storage._rows import load


@dataclass(frozen=True)
class ScoredExecution:
    config: Mapping[str, Any]
    rounds: Mapping[tuple[str, int], Mapping[str, Any]]


def read_scored(conn: duckdb.DuckDBPyConnection, execution_ids: Iterable[str]) -> dict[str, ScoredExecution]:
    """Each of `execution_ids` the store holds, read in one transaction; absent ids are left out."""
    found: dict[str, ScoredExecution] = {}
    conn.begin()
    try:
        for execution_id in dict.fromkeys(execution_ids):
            record = conn.execute(
                "SELECT config FROM executions WHERE execution_id = ?", [execution_id]
            ).fetchone()
            if record is None:
                continue
            board = conn.execute(
                "SELECT team_id, round_number, evaluation_score, score_details FROM leader_board "
                "WHERE execution_id = ?",
                [execution_id],
            ).fetchall()
            found[execution_id] = ScoredExecution(
                config=load(record[0]) or {},
                rounds={
                    (team, number): {"evaluation_score": score, "score_details": load(details) or {}}
                    for team, number, score, details in board
                },
            )
    finally:
        conn.rollback()
    return found
