"""The workflow runs outside Temporal's sandbox (it costs the exec process CPU at every
activation), so this is what checks its determinism: a finished execution's history, replayed
by the workflow code as `mixseek exec` runs it, gives the same commands at every step."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from e2e.scripted import write_workspace
from mixseek import __version__
from mixseek.orchestrator.temporal.client import WORKFLOW_RUNNER
from mixseek.orchestrator.temporal.messages import workflow_id
from mixseek.orchestrator.temporal.workflow import ExecutionWorkflow

from .cluster import exec_with_worker
from .history import events

EXECUTION_ID = "replay-1"


async def _replay(address: str) -> None:
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    history = await client.get_workflow_handle(workflow_id(EXECUTION_ID)).fetch_history()
    # every kind of step happened: store work and judgments, team rounds, the finish
    kinds = {e.WhichOneof("attributes") for e in history.events}
    assert {"marker_recorded_event_attributes", "activity_task_completed_event_attributes"} <= kinds
    replayer = Replayer(
        workflows=[ExecutionWorkflow], data_converter=pydantic_data_converter, workflow_runner=WORKFLOW_RUNNER
    )
    await replayer.replay_workflow(history)  # raises on a non-deterministic step


def test_a_finished_execution_replays_deterministically(tmp_path: Path, temporal_address: str) -> None:
    ws = write_workspace(tmp_path / "ws")
    done = exec_with_worker(
        ws, temporal_address, "最良の回答を", "-f", "json", "--execution-id", EXECUTION_ID
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "completed"
    asyncio.run(_replay(temporal_address))


def test_the_exec_process_tells_temporal_mixseek_s_version_and_the_config(
    tmp_path: Path, temporal_address: str
) -> None:
    """Its own build id, not the SDK's default (a hash of every loaded module's bytecode, 0.1 s of
    CPU at each start)."""
    ws = write_workspace(tmp_path / "ws")
    done = exec_with_worker(ws, temporal_address, "最良の回答を", "--execution-id", "build-id-1")
    assert done.returncode == 0, done.stderr
    started = [
        e.workflow_task_started_event_attributes.worker_version.build_id
        for e in events(temporal_address, "build-id-1")
        if e.HasField("workflow_task_started_event_attributes")
    ]
    assert started
    assert len(set(started)) == 1
    assert re.fullmatch(rf"mixseek-{re.escape(__version__)}-[0-9a-f]{{16}}", started[0])
