"""A reference answer reaches the evaluator on Temporal workers as it does locally."""

from __future__ import annotations

import json
from pathlib import Path

from e2e.db import rows
from e2e.scripted import write_workspace

from .cluster import mixseek, spawn_worker

EVALUATOR = """
[evaluator]
model = "script:metric"
[[evaluator.metrics]]
name = "reference_similarity"
[[evaluator.metrics]]
name = "relevance"
"""
REFERENCE = "alpha answer secretkey"
QUERY = "SELECT team_id, round_number, evaluation_score, score_details FROM leader_board ORDER BY 1, 2"


def test_workers_score_with_the_reference_as_the_local_engine_does(
    tmp_path: Path, temporal_address: str
) -> None:
    boards = []
    for name, engine in (("local", []), ("temporal", ["--temporal-address", temporal_address])):
        extra = 'engine = "temporal"' if engine else ""
        ws = write_workspace(tmp_path / name, max_rounds=2, extra=extra)
        (ws / "configs" / "evaluator.toml").write_text(EVALUATOR, encoding="utf-8")
        workers = [spawn_worker(ws, temporal_address)] if engine else []
        try:
            done = mixseek("exec", "最良の回答を", "-w", str(ws), "--reference", REFERENCE, *engine)
        finally:
            for worker in workers:
                worker.terminate()
                worker.wait()
        assert done.returncode == 0, done.stderr
        assert rows(ws / "mixseek.db", "SELECT reference FROM executions") == [(REFERENCE,)]
        boards.append(rows(ws / "mixseek.db", QUERY))
    local, temporal = boards
    assert temporal == local
    # alpha round 1: token F1 0.4 against the reference, which the workers had (without it, the metric fails)
    assert json.loads(str(local[0][3]))["reference_similarity"]["score"] == 40.0
