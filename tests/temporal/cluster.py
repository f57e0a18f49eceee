"""Helpers for the Temporal tests: scripted `mixseek` subprocesses and the rows both engines store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from e2e.db import rows

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"
TEMPORAL = Path(sys.executable).with_name("temporal")


def mixseek(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`mixseek ARGS` in a process of its own, with the scripted models (workers it starts too)."""
    return subprocess.run(
        [sys.executable, str(RUN_SCRIPTED), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(RUN_SCRIPTED), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def spawn_worker(
    ws: Path, address: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """A scripted `mixseek worker ARGS`, returned once it serves its task queue."""
    proc = spawn("worker", "-w", str(ws), "--temporal-address", address, *args, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("worker: serving"), line + proc.stderr.read()
    return proc


def held(gate: Path, proc: subprocess.Popen[str]) -> None:
    """Return once `proc`'s scripted models hold at `gate` (SCRIPTED_GATE: `gate.waiting` exists)."""
    while not gate.with_name(gate.name + ".waiting").exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)


def served(client: subprocess.Popen[str], worker: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    """`client`'s end, while `worker` serves it; both are stopped whatever happens."""
    try:
        try:
            out, err = client.communicate(timeout=600)
        finally:
            worker.terminate()
            worker.wait()
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    return subprocess.CompletedProcess(client.args, client.returncode, out, err)


def exec_with_worker(ws: Path, address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`mixseek exec ARGS -w WS --temporal-address ADDRESS`, served by one scripted worker while it runs."""
    worker = spawn_worker(ws, address)
    try:
        return mixseek("exec", *args, "-w", str(ws), "--temporal-address", address)
    finally:
        worker.terminate()
        worker.wait()


def stored_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """What an execution stored, without ids and times: equal for equal scripted outputs."""
    return {
        "executions": rows(db, "SELECT user_prompt, status, summary->>'$.stop_reason' FROM executions"),
        "leader_board": rows(
            db,
            "SELECT team_id, team_name, round_number, evaluation_score, evaluation_feedback, "
            "score_details::TEXT, submission_content, is_final FROM leader_board ORDER BY 1, 3",
        ),
        "round_status": rows(
            db,
            "SELECT team_id, round_number, status, should_continue, judgment_reasoning, "
            "judgment_confidence, exit_reason, error_message FROM round_status ORDER BY 1, 2",
        ),
        "round_history": [
            (team, number, _timeless(json.loads(str(record))))
            for team, number, record in rows(
                db,
                "SELECT team_id, round_number, member_submissions_record::TEXT FROM round_history "
                "ORDER BY 1, 2",
            )
        ],
        "team_standings": rows(
            db,
            "SELECT team_id, max_score, best_round, total_rounds, last_round FROM team_standings ORDER BY 1",
        ),
        "model_calls": rows(
            db,
            "SELECT team_id, round_number, site, model, requests, input_tokens, output_tokens "
            "FROM model_calls ORDER BY ALL",
        ),
    }


def _timeless(value: object) -> object:
    """A stored record without the times of its member runs."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in ("timestamp", "execution_time_ms")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value
