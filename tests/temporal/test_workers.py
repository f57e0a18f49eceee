"""`mixseek worker`s sharing an execution, and a team whose provider stays down, on Temporal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from e2e.scripted import write_workspace

from .cluster import mixseek, spawn_worker, stored_rows


def _stop(workers: list[subprocess.Popen[str]]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.wait()


def test_two_workers_both_take_work_and_store_the_rows_of_local(
    tmp_path: Path, temporal_address: str
) -> None:
    ws = write_workspace(tmp_path / "ws")
    pids = tmp_path / "pids"
    pids.mkdir()
    # every leader waits until leaders in two processes have been called, and a worker runs one
    # team round at a time: the execution finishes only if the second worker takes work too
    env = {"SCRIPTED_PIDS": str(pids)}
    workers = [spawn_worker(ws, temporal_address, "--concurrency", "1", env=env) for _ in range(2)]
    try:
        done = mixseek("exec", "最良の回答を", "-w", str(ws), "-f", "json",
                       "--temporal-address", temporal_address)  # fmt: skip
    finally:
        _stop(workers)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "completed"
    assert {int(p.name) for p in pids.iterdir()} == {w.pid for w in workers}

    local_ws = write_workspace(tmp_path / "local")
    local = mixseek("exec", "最良の回答を", "-w", str(local_ws), "-f", "json")
    assert local.returncode == 0, local.stderr
    assert stored_rows(ws / "mixseek.db") == stored_rows(local_ws / "mixseek.db")


def test_model_error_exhausting_retries_isolates_the_team_as_local_does(
    tmp_path: Path, temporal_address: str
) -> None:
    """beta's provider answers 500 to every request: mixseek retries it 3 times, then beta fails
    alone; Temporal does not run the round again on top of mixseek's own retries."""
    runs: dict[str, tuple[subprocess.CompletedProcess[str], Path, Path]] = {}
    for engine in ("local", "temporal"):
        ws = write_workspace(tmp_path / engine, max_rounds=2)
        attempts = tmp_path / f"{engine}-attempts"
        env = {"SCRIPTED_DOWN": "beta", "SCRIPTED_DOWN_LOG": str(attempts)}
        args = ("exec", "最良の回答を", "-w", str(ws), "-f", "json")
        if engine == "local":
            runs[engine] = (mixseek(*args, env=env), ws, attempts)
            continue
        worker = spawn_worker(ws, temporal_address, env=env)
        try:
            runs[engine] = (mixseek(*args, "--temporal-address", temporal_address), ws, attempts)
        finally:
            _stop([worker])

    (local, local_ws, local_attempts), (temporal, temporal_ws, temporal_attempts) = runs.values()
    error = "ModelHTTPError: status_code: 500, model_name: leader-beta, body: provider down"
    for done in (local, temporal):
        assert done.returncode == 1, done.stderr
        summary = json.loads(done.stdout)
        assert summary["status"] == "partial_failure"
        beta = next(t for t in summary["teams"] if t["team_id"] == "beta")
        assert (beta["status"], beta["error"]) == ("failed", error)
    assert json.loads(temporal.stdout)["teams"] == json.loads(local.stdout)["teams"]

    local_rows, temporal_rows = stored_rows(local_ws / "mixseek.db"), stored_rows(temporal_ws / "mixseek.db")
    assert temporal_rows == local_rows
    assert [r[2:] for r in local_rows["round_status"] if r[0] == "beta"] == [
        ("failed", None, None, None, None, error)
    ]
    # the first attempt and 3 retries, each stored once as a request of beta's round 1
    beta_calls = [(r[1], r[4]) for r in local_rows["model_calls"] if r[0] == "beta"]
    assert beta_calls == [(1, 1)] * 4
    assert len(local_attempts.read_text().splitlines()) == 4
    assert len(temporal_attempts.read_text().splitlines()) == 4
