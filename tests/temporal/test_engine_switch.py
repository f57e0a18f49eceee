"""`mixseek exec --engine temporal`: the same leaderboard and the same rows as the local engine."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from temporalio.client import Client, WorkflowExecutionStatus

from e2e.db import rows
from e2e.scripted import write_workspace

from .cluster import exec_with_worker, mixseek, spawn_worker, stored_rows


def test_temporal_with_local_dev_server_stores_the_rows_of_local(tmp_path: Path) -> None:
    local_ws = write_workspace(tmp_path / "local")
    temporal_ws = write_workspace(tmp_path / "temporal")

    local = mixseek("exec", "最良の回答を", "-w", str(local_ws), "-f", "json")
    assert local.returncode == 0, local.stderr
    done = mixseek("exec", "最良の回答を", "-w", str(temporal_ws), "-f", "json", "--engine", "temporal",
                   "--workers", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr

    assert "temporal: dev server 127.0.0.1:" in done.stderr
    local_summary, temporal_summary = json.loads(local.stdout), json.loads(done.stdout)
    assert temporal_summary["leaderboard"] == local_summary["leaderboard"]
    assert temporal_summary["best"] == local_summary["best"]
    assert temporal_summary["usage"] == local_summary["usage"]
    assert stored_rows(temporal_ws / "mixseek.db") == stored_rows(local_ws / "mixseek.db")
    # both workers were started and have stopped with the execution; together they run as many
    # team rounds at once as max_concurrent_teams (3) allows, not 8 each
    logs = temporal_ws / "logs"
    started = [(logs / f"temporal-worker-{n}.log").read_text().splitlines()[0] for n in (1, 2)]
    assert all(line.startswith("worker: serving") and line.endswith(", 2 at once)") for line in started)


def test_config_key_selects_the_engine_and_workers_on_an_address_take_the_work(
    tmp_path: Path, temporal_address: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2, extra='engine = "temporal"')
    local_ws = write_workspace(tmp_path / "local", max_rounds=2)
    workers = [spawn_worker(ws, temporal_address) for _ in range(2)]
    try:
        done = mixseek("exec", "最良の回答を", "-w", str(ws), "-f", "json",
                       "--temporal-address", temporal_address)  # fmt: skip
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait()
    assert done.returncode == 0, done.stderr
    assert "dev server" not in done.stderr
    local = mixseek("exec", "最良の回答を", "-w", str(local_ws), "-f", "json")
    assert local.returncode == 0, local.stderr
    assert stored_rows(ws / "mixseek.db") == stored_rows(local_ws / "mixseek.db")
    assert rows(ws / "mixseek.db", "SELECT count(*) FROM executions WHERE status = 'completed'") == [(1,)]


def test_a_long_history_goes_on_in_new_runs_and_stores_the_rows_of_local(
    tmp_path: Path, temporal_address: str
) -> None:
    # one event is "long": every round after the first starts a new run of the workflow
    ws = write_workspace(tmp_path / "ws", max_rounds=3, extra="temporal_history_events_per_run = 1")
    local_ws = write_workspace(tmp_path / "local", max_rounds=3)
    done = exec_with_worker(ws, temporal_address, "最良の回答を", "-f", "json", "--engine", "temporal")
    assert done.returncode == 0, done.stderr
    local = mixseek("exec", "最良の回答を", "-w", str(local_ws), "-f", "json")
    assert local.returncode == 0, local.stderr
    assert stored_rows(ws / "mixseek.db") == stored_rows(local_ws / "mixseek.db")
    summary = json.loads(done.stdout)
    rounds = json.loads(local.stdout)["rounds_run"]
    assert summary["rounds_run"] == rounds >= 2

    async def runs() -> list[WorkflowExecutionStatus | None]:
        client = await Client.connect(temporal_address)
        query = f"WorkflowId = 'mixseek-{summary['execution_id']}'"
        return [run.status async for run in client.list_workflows(query)]

    statuses = asyncio.run(runs())
    assert len(statuses) == rounds, statuses  # one run per round
    assert statuses.count(WorkflowExecutionStatus.CONTINUED_AS_NEW) == rounds - 1, statuses
    assert statuses.count(WorkflowExecutionStatus.COMPLETED) == 1, statuses
