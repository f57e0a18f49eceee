"""What a workflow's history says ran: activities on task queues, and local activities (the
`mixseek exec` process's store work and judgments, recorded as markers)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from mixseek.orchestrator.temporal.messages import workflow_id


def events(address: str, execution_id: str) -> list[HistoryEvent]:
    async def fetch() -> list[HistoryEvent]:
        client = await Client.connect(address)
        history = await client.get_workflow_handle(workflow_id(execution_id)).fetch_history()
        return list(history.events)

    return asyncio.run(fetch())


def scheduled(history: list[HistoryEvent]) -> list[tuple[str, str, dict[str, Any]]]:
    """(activity type, activity id, input) of every activity put on a task queue."""
    found = []
    for event in history:
        if event.HasField("activity_task_scheduled_event_attributes"):
            a = event.activity_task_scheduled_event_attributes
            data = json.loads(a.input.payloads[0].data) if a.input.payloads else {}
            found.append((a.activity_type.name, a.activity_id, data))
    return found


def local_activities(history: list[HistoryEvent]) -> list[tuple[str, str]]:
    """(activity type, activity id) of every local activity the workflow recorded, in order."""
    found = []
    for event in history:
        if event.HasField("marker_recorded_event_attributes"):
            marker = event.marker_recorded_event_attributes
            if marker.marker_name == "core_local_activity":
                data = json.loads(marker.details["data"].payloads[0].data)
                found.append((data["activity_type"], data["activity_id"]))
    return found
