"""`mixseek worker`'s loop: serve a workspace's team rounds until stopped (SIGTERM or Ctrl-C)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from temporalio.worker import Worker

from mixseek.config.bundle import ExecutionConfig
from mixseek.errors import InputError
from mixseek.orchestrator.temporal.client import connect
from mixseek.orchestrator.temporal.identity import build_id, work_hash
from mixseek.orchestrator.temporal.messages import WORKFLOW_NAME, team_queue
from mixseek.orchestrator.temporal.team_work import TeamWork


async def running_hashes(address: str) -> set[str]:
    """The config hashes of the executions running on the server."""
    client = await connect(address)
    hashes: set[str] = set()
    query = f'WorkflowType="{WORKFLOW_NAME}" AND ExecutionStatus="Running"'
    async for execution in client.list_workflows(query):
        value = (await execution.memo()).get("config_hash")
        if isinstance(value, str):
            hashes.add(value)
    return hashes


async def check_worker(config: ExecutionConfig, address: str, started_for: str | None = None) -> str:
    """The worker's hash; refused when executions run there and none has this configuration, or,
    for a worker a `mixseek exec` started (`started_for` its hash), when it is not that one's."""
    mine = work_hash(config)
    if started_for is not None:
        if mine != started_for:
            raise InputError(
                f"{config.orchestrator.file}: workspace config hash {mine[:16]} differs from that of "
                f"the `mixseek exec` that started this worker ({started_for[:16]}): the configs changed"
            )
        return mine
    running = await running_hashes(address)
    if running and mine not in running:
        theirs = ", ".join(sorted(h[:16] for h in running))
        raise InputError(
            f"{config.orchestrator.file}: workspace config hash {mine[:16]} differs from the running "
            f"execution's ({theirs}); give the worker the same configs as the `mixseek exec` client"
        )
    return mine


async def serve(
    config: ExecutionConfig, address: str, config_hash: str, concurrency: int, ready: Callable[[str], None]
) -> None:
    client = await connect(address)
    queue = team_queue(config_hash)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    work = TeamWork(config, config_hash)
    async with Worker(
        client,
        task_queue=queue,
        activities=work.activities(),
        max_concurrent_activities=concurrency,
        build_id=build_id(config_hash),
    ):
        ready(queue)
        await stop.wait()
