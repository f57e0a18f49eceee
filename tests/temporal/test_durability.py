"""Durability for free: a worker killed mid-round, and a `mixseek exec` client killed and resumed."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil
from temporalio.client import Client

from e2e.db import rows
from e2e.scripted import write_workspace
from mixseek import __version__
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.orchestrator.orchestrator import new_execution_id
from mixseek.orchestrator.temporal.identity import work_hash

from .cluster import held, mixseek, served, spawn, spawn_worker, stored_rows


def _local_rows(tmp_path: Path) -> dict[str, list[tuple[object, ...]]]:
    ws = write_workspace(tmp_path / "local")
    done = mixseek("exec", "最良の回答を", "-w", str(ws), "-f", "json")
    assert done.returncode == 0, done.stderr
    return stored_rows(ws / "mixseek.db")


def _completed_as_locally(done: subprocess.CompletedProcess[str], db: Path, tmp_path: Path) -> None:
    """The execution completed and stored what the local engine stores for the same outputs."""
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "completed"
    assert stored_rows(db) == _local_rows(tmp_path)


def test_worker_killed_mid_round_another_redoes_the_team_round(tmp_path: Path, temporal_address: str) -> None:
    ws = write_workspace(tmp_path / "ws")
    # this worker dies (SIGKILL) as alpha's leader is called in round 2
    doomed = spawn_worker(ws, temporal_address, env={"SCRIPTED_KILL_AT": "alpha:2"})
    client = spawn(
        "exec", "最良の回答を", "-w", str(ws), "-f", "json", "--temporal-address", temporal_address
    )
    try:
        assert doomed.wait(timeout=600) == -signal.SIGKILL
        survivor = spawn_worker(ws, temporal_address)
    except BaseException:
        client.kill()
        client.wait()
        raise
    done = served(client, survivor)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "completed"
    # the redone rounds are stored once, with the usage of the requests that produced them once
    assert stored_rows(ws / "mixseek.db") == _local_rows(tmp_path)


def _exec_killed_mid_round(ws: Path, gate: Path, execution_id: str, address: str) -> subprocess.Popen[str]:
    """An `exec` killed while the workflow is mid-round: the worker's round-2 leaders wait for
    `gate`, which opens once the client is dead (the worker finishes round 2, and its results
    wait for a client to store them). The worker is returned still serving."""
    worker = spawn_worker(ws, address, env={"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "2"})
    try:
        client = spawn("exec", "最良の回答を", "-w", str(ws), "-f", "json", "--execution-id", execution_id,
                       "--temporal-address", address)  # fmt: skip
        held(gate, client)
        client.kill()
        client.wait()
    except BaseException:
        worker.terminate()
        worker.wait()
        raise
    gate.touch()
    return worker


def test_client_killed_then_resume_reattaches(tmp_path: Path, temporal_address: str) -> None:
    ws = write_workspace(tmp_path / "ws")
    execution_id = new_execution_id()
    worker = _exec_killed_mid_round(ws, tmp_path / "gate", execution_id, temporal_address)
    try:
        db = ws / "mixseek.db"
        assert rows(db, "SELECT count(*) FROM leader_board WHERE round_number = 2") == [(0,)]

        resumed = mixseek("exec", "--resume", execution_id, "-w", str(ws), "-f", "json",
                          "--temporal-address", temporal_address)  # fmt: skip
    finally:
        worker.terminate()
        worker.wait()
    _completed_as_locally(resumed, db, tmp_path)
    # one workflow ran the whole execution: the resumed client reattached to it
    assert asyncio.run(_workflow_runs(temporal_address, execution_id)) == ["COMPLETED"]


def test_client_killed_mid_judgments_then_resumed_judges_each_team_once(
    tmp_path: Path, temporal_address: str
) -> None:
    """Judgments run in the `mixseek exec` process: one killed while some of a round's are stored
    and one is still being made leaves the stored ones to stand; the resumed client makes only
    the missing one."""
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"
    execution_id = new_execution_id()
    log = ws / "logs" / f"{execution_id}.jsonl"
    held = {"SCRIPTED_JUDGMENT_GATE": str(gate), "SCRIPTED_JUDGMENT_GATE_TEAM": "gamma"}
    worker = spawn_worker(ws, temporal_address)
    try:
        client = spawn("exec", "最良の回答を", "-w", str(ws), "-f", "json", "--execution-id", execution_id,
                       "--temporal-address", temporal_address, env=held)  # fmt: skip
        # gamma's round-1 judgment is held; alpha's and beta's are made and stored meanwhile
        while not (gate.with_name("gate.waiting").exists() and _decided(log) >= {("alpha", 1), ("beta", 1)}):
            assert client.poll() is None, client.communicate()
            time.sleep(0.1)
        client.kill()
        client.wait()
        gate.touch()
        resumed = mixseek("exec", "--resume", execution_id, "-w", str(ws), "-f", "json",
                          "--temporal-address", temporal_address)  # fmt: skip
    finally:
        worker.terminate()
        worker.wait()
    # each judgment stored once, with its one model call, as the local engine stores them
    _completed_as_locally(resumed, ws / "mixseek.db", tmp_path)


def _logged(log: Path, kind: str) -> list[dict[str, Any]]:
    """The events of `kind` the execution's event log holds so far (whole lines only)."""
    if not log.exists():
        return []
    lines = log.read_text(encoding="utf-8").splitlines()
    return [e for e in (json.loads(line) for line in lines if line.endswith("}")) if e["kind"] == kind]


def _decided(log: Path) -> set[tuple[str, int]]:
    """The (team, round) decisions the execution's event log reports stored so far."""
    return {(e["team_id"], e["round_number"]) for e in _logged(log, "team_decided")}


async def _workflow_runs(address: str, execution_id: str) -> list[str]:
    """The statuses of the execution's workflow runs, once the server's list shows it completed
    (the list is updated after the workflow, however long that takes)."""
    client = await Client.connect(address)
    while True:
        statuses = [
            run.status.name if run.status else "?"
            async for run in client.list_workflows(f'WorkflowId="mixseek-{execution_id}"')
        ]
        if "COMPLETED" in statuses:
            return statuses
        await asyncio.sleep(0.2)


def test_client_with_its_own_dev_server_killed_then_resumed(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"
    execution_id = new_execution_id()
    client = spawn("exec", "最良の回答を", "-w", str(ws), "-f", "json", "--execution-id", execution_id,
                   "--engine", "temporal", "--workers", "1",
                   env={"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "2"})  # fmt: skip
    held(gate, client)
    children = psutil.Process(client.pid).children(recursive=True)
    assert len(children) >= 2  # the dev server and the worker
    client.kill()
    client.wait()
    # the dev server and the worker die with the client: nothing is left running
    psutil.wait_procs(children)
    gate.touch()

    # a new dev server on the workspace's Temporal state finds the workflow and goes on with it
    resumed = mixseek("exec", "--resume", execution_id, "-w", str(ws), "-f", "json", "--engine", "temporal")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
    assert stored_rows(ws / "mixseek.db") == _local_rows(tmp_path)


def _hash(ws: Path) -> str:
    return work_hash(load_execution_config(Workspace(ws)))


def _replacements(log: Path) -> list[str]:
    """The reasons the execution's event log gives for ending a workflow that still ran."""
    return [e["reason"] for e in _logged(log, "workflow_replaced")]


def test_resume_with_edited_configs_replaces_the_workflow_that_still_runs(
    tmp_path: Path, temporal_address: str
) -> None:
    """The running workflow sends its team rounds to workers of the configs it started with; after
    an edit, a resume ends it and a new one goes on from the store with workers of the new ones,
    storing what the local engine stores (the edit changes no output)."""
    ws = write_workspace(tmp_path / "ws")
    execution_id = new_execution_id()
    log = ws / "logs" / f"{execution_id}.jsonl"
    old = _exec_killed_mid_round(ws, tmp_path / "gate", execution_id, temporal_address)
    old.terminate()  # the old configs' worker goes with them
    old.wait()
    started_with = _hash(ws)
    toml = ws / "configs" / "orchestrator.toml"
    edit = toml.read_text(encoding="utf-8").replace(
        "retry_max_delay_seconds = 0.05", "retry_max_delay_seconds = 0.06"
    )
    toml.write_text(edit, encoding="utf-8")
    edited = _hash(ws)
    assert edited != started_with

    resumed = spawn("exec", "--resume", execution_id, "-w", str(ws), "-f", "json",
                    "--temporal-address", temporal_address)  # fmt: skip
    try:
        while not _replacements(log):
            assert resumed.poll() is None, resumed.communicate()
            time.sleep(0.1)
        # a worker of the edited configs: accepted, as the workflow of the old ones has ended
        new = spawn_worker(ws, temporal_address)
    except BaseException:
        resumed.kill()
        resumed.wait()
        raise
    done = served(resumed, new)
    assert _replacements(log) == [f"it runs with other configs (hash {started_with[:16]}, now {edited[:16]})"]
    _completed_as_locally(done, ws / "mixseek.db", tmp_path)
    assert sorted(asyncio.run(_workflow_runs(temporal_address, execution_id))) == ["COMPLETED", "TERMINATED"]


def test_resume_on_another_mixseek_version_replaces_the_workflow_that_still_runs(tmp_path: Path) -> None:
    """Its history may not replay on other workflow code: the workflow that another mixseek started
    (here with its own dev server and worker, killed with it) is ended, and a new one goes on."""
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"
    execution_id = new_execution_id()
    other = {"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "2", "SCRIPTED_VERSION": "0.0.1"}
    client = spawn("exec", "最良の回答を", "-w", str(ws), "-f", "json", "--execution-id", execution_id,
                   "--engine", "temporal", "--workers", "1", env=other)  # fmt: skip
    held(gate, client)
    children = psutil.Process(client.pid).children(recursive=True)
    client.kill()
    client.wait()
    psutil.wait_procs(children)
    gate.touch()

    resumed = mixseek("exec", "--resume", execution_id, "-w", str(ws), "-f", "json", "--engine", "temporal")
    h = _hash(ws)[:16]
    log = ws / "logs" / f"{execution_id}.jsonl"
    assert _replacements(log) == [f"it runs on mixseek-0.0.1-{h}, this is mixseek-{__version__}-{h}"]
    _completed_as_locally(resumed, ws / "mixseek.db", tmp_path)
