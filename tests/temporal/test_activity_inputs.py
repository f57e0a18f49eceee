"""What a team round or a judgment carries to its worker: the ranking and its own team's history.

Every activity input stays in the workflow's history, and a round's inputs all go to the server
in one message: with every team's history in each, both grew as T² (64 teams already passed
gRPC's 4 MB limit and the server terminated the workflow).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from temporalio.client import Client

from e2e.scripted import write_workspace

from .cluster import mixseek, spawn_worker

EXECUTION_ID = "activity-inputs-1"


async def _work_inputs(address: str, workflow_id: str) -> list[tuple[str, dict[str, Any]]]:
    client = await Client.connect(address)
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    inputs = []
    for event in history.events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name in ("team_round", "judge"):
                payload = json.loads(scheduled.input.payloads[0].data)
                inputs.append((scheduled.activity_type.name, payload))
    return inputs


def test_each_team_round_and_judgment_carries_only_its_own_teams_history(
    tmp_path: Path, temporal_address: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    worker = spawn_worker(ws, temporal_address)
    try:
        done = mixseek("exec", "最良の回答を", "-w", str(ws), "-f", "json", "--execution-id", EXECUTION_ID,
                       "--temporal-address", temporal_address)  # fmt: skip
    finally:
        worker.terminate()
        worker.wait()
    assert done.returncode == 0, done.stderr

    inputs = asyncio.run(_work_inputs(temporal_address, f"mixseek-{EXECUTION_ID}"))
    teams = {"alpha", "beta", "gamma"}
    carried = {(kind, p["team_id"], p["round_number"]): set(p["snapshot"]["histories"]) for kind, p in inputs}
    assert all(histories <= {team} for (_, team, _), histories in carried.items())
    assert {("judge", team, 1) for team in teams} <= set(carried)
    # round 2 starts from round 1's board: each team gets its own round 1, not the others'
    assert {key: h for key, h in carried.items() if key[0] == "team_round" and key[2] == 2} == {
        ("team_round", team, 2): {team} for team in teams
    }
    # ... and the ranking of every team, as the local engine gives it
    assert all(len(p["snapshot"]["ranking"]) == 3 for kind, p in inputs if p["round_number"] == 2)
