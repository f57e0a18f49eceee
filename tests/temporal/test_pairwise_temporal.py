"""The final pairwise stage on the Temporal engine stores what the local engine stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from e2e.db import rows
from pairwise.pairwise_script import pairwise_workspace

RUN_PAIRWISE = Path(__file__).parents[1] / "pairwise" / "run_pairwise.py"
QUERIES = (
    "SELECT team_a, team_b, verdict_a_first, verdict_b_first, outcome FROM pairwise_comparisons "
    "ORDER BY sequence",
    "SELECT rank, team_id, strength, ci_low, ci_high, wins, matches FROM pairwise_ranking ORDER BY rank",
    "SELECT sum(requests) FROM model_calls WHERE site = 'pairwise judge'",
)
ENV = {**os.environ, "PAIRWISE_ORDER": "beta,alpha,gamma"}


def _worker(ws: Path, address: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, str(RUN_PAIRWISE), "worker", "-w", str(ws), "--temporal-address", address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("worker: serving"), line + proc.stderr.read()
    return proc


def test_pairwise_stage_runs_after_the_workflow_as_locally(tmp_path: Path, temporal_address: str) -> None:
    stored = []
    for name, engine in (("local", []), ("temporal", ["--temporal-address", temporal_address])):
        extra = 'engine = "temporal"' if engine else ""
        ws = pairwise_workspace(tmp_path / name, 'schedule = "round_robin"', orchestrator_extra=extra)
        workers = [_worker(ws, temporal_address)] if engine else []
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    str(RUN_PAIRWISE),
                    "exec",
                    "最良の回答を",
                    "-w",
                    str(ws),
                    "-f",
                    "json",
                    *engine,
                ],
                capture_output=True,
                text=True,
                env=ENV,
                timeout=600,
            )
        finally:
            for worker in workers:
                worker.terminate()
                worker.wait()
        assert done.returncode == 0, done.stderr
        assert "pairwise_finished status=completed comparisons=3 leader=beta" in done.stderr
        summary = json.loads(done.stdout)
        assert [s["team_id"] for s in summary["pairwise"]["ranking"]] == ["beta", "alpha", "gamma"]
        db = ws / "mixseek.db"
        stored.append([rows(db, query) for query in QUERIES])
    local, temporal = stored
    assert temporal == local
    assert local[2] == [(6,)]
