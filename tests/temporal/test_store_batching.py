"""Team results that finish while a store write is under way are stored together: one store
activity (one transaction) for all of them, where each used to cost an activity of its own.
Store work is a local activity of the `mixseek exec` process, so the server sees none of it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from e2e.scripted import write_workspace
from mixseek.orchestrator.orchestrator import new_execution_id

from .cluster import mixseek, spawn_worker, stored_rows
from .history import events as history_events
from .history import local_activities, scheduled

RUN_STORE_GATED = Path(__file__).with_name("run_store_gated.py")
TEAMS = ("alpha", "beta", "gamma")


def test_results_arriving_during_a_store_write_share_the_next_one(
    tmp_path: Path, temporal_address: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    gate = tmp_path / "gate"
    execution_id = new_execution_id()
    client = subprocess.Popen(
        [sys.executable, str(RUN_STORE_GATED), "exec", "最良の回答を", "-w", str(ws), "-f", "json",
         "--execution-id", execution_id, "--temporal-address", temporal_address],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "STORE_GATE": str(gate)},
    )  # fmt: skip
    worker = spawn_worker(ws, temporal_address)
    try:
        # the store holds the first team result it gets; the gate opens once every team's round 1
        # is done, so the other results reach the workflow while that write is still under way
        while True:
            assert client.poll() is None, client.communicate()
            if gate.with_name("gate.waiting").exists():
                done = [
                    e.activity_task_completed_event_attributes.scheduled_event_id
                    for e in history_events(temporal_address, execution_id)
                    if e.HasField("activity_task_completed_event_attributes")
                ]
                if len(done) == len(TEAMS):  # the three round-1 team rounds (the only activities yet)
                    break
            time.sleep(0.1)
        gate.touch()
        out, err = client.communicate(timeout=600)
    finally:
        worker.terminate()
        worker.wait()
        if client.poll() is None:
            client.kill()
            client.wait()
    assert client.returncode == 0, err
    assert json.loads(out)["status"] == "completed"

    history = history_events(temporal_address, execution_id)
    # the server schedules team rounds and the finish; store work never reaches its task queues
    assert sorted({kind for kind, _, _ in scheduled(history)}) == ["store_finish", "team_round"]
    saves = [aid for kind, aid in local_activities(history) if kind == "store_record_team_rounds"]
    round_1 = [aid for aid in saves if "-r1-" in aid]
    # the held write, then one for the results that queued behind it: not one per team
    assert len(round_1) <= 2, round_1
    sizes = [
        1 + int(m.group(1) or 0) for m in (re.search(r"-save\d+-\w+?(?:\+(\d+))?$", a) for a in round_1) if m
    ]
    assert sum(sizes) == len(TEAMS), round_1

    # each team's result is still its own event, and stored once, as the local engine stores it
    events = [json.loads(line) for line in (ws / "logs" / f"{execution_id}.jsonl").read_text().splitlines()]
    finished = sorted((e["team_id"], e["round_number"]) for e in events if e["kind"] == "team_round_finished")
    assert finished == sorted((t, r) for t in TEAMS for r in (1, 2))
    local = write_workspace(tmp_path / "local", max_rounds=2)
    done = mixseek("exec", "最良の回答を", "-w", str(local), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert stored_rows(ws / "mixseek.db") == stored_rows(local / "mixseek.db")
