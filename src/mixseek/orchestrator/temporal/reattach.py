"""Whether a resumed `mixseek exec` can take over the workflow its execution still has running. One started
with other configs would wait for workers nobody starts, one on another version could fail to replay; such a
workflow is ended, and a new one goes on from the store."""

from __future__ import annotations

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from mixseek.orchestrator.temporal.identity import build_id
from mixseek.orchestrator.temporal.messages import workflow_id


async def replace_stale_workflow(client: Client, execution_id: str, config_hash: str) -> str | None:
    """Why the execution's running workflow was ended, or None when there is none to end."""
    handle = client.get_workflow_handle(workflow_id(execution_id))
    try:
        described = await handle.describe()
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    if described.status != WorkflowExecutionStatus.RUNNING:
        return None
    started_with = (await described.memo()).get("config_hash")
    ran_on = described.raw_description.workflow_execution_info.most_recent_worker_version_stamp.build_id
    ours = build_id(config_hash)
    if started_with != config_hash:
        reason = f"it runs with other configs (hash {str(started_with)[:16]}, now {config_hash[:16]})"
    elif ran_on and ran_on != ours:
        reason = f"it runs on {ran_on}, this is {ours}"
    else:
        return None
    await handle.terminate(reason=f"mixseek exec --resume: {reason}")
    return reason
