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
from mixseek.version import __version__


async def running_executions(address: str) -> set[tuple[str, str | None]]:
    """(config hash, mixseek version) of the executions running on the server."""
    client = await connect(address)
    found: set[tuple[str, str | None]] = set()
    query = f'WorkflowType="{WORKFLOW_NAME}" AND ExecutionStatus="Running"'
    async for execution in client.list_workflows(query):
        memo = await execution.memo()
        config_hash, version = memo.get("config_hash"), memo.get("version")
        if isinstance(config_hash, str):
            found.add((config_hash, version if isinstance(version, str) else None))
    return found


async def check_worker(config: ExecutionConfig, address: str, started_for: str | None = None) -> str:
    """The worker's hash, refused unless it and this version match a running execution's (`started_for`)."""
    mine = work_hash(config)
    where = config.orchestrator.file
    if started_for is not None:
        if mine != started_for:
            raise InputError(
                f"{where}: workspace config hash {mine[:16]} differs from that of "
                f"the `mixseek exec` that started this worker ({started_for[:16]}): the configs changed"
            )
        return mine
    running = await running_executions(address)
    if not running or (mine, __version__) in running:
        return mine
    versions = sorted(version or "an older one" for config_hash, version in running if config_hash == mine)
    if versions:
        raise InputError(
            f"{where}: this worker is mixseek {__version__}, the running execution's `mixseek exec` "
            f"is {', '.join(versions)}; give the worker the same mixseek version"
        )
    theirs = ", ".join(sorted({config_hash[:16] for config_hash, _ in running}))
    raise InputError(
        f"{where}: workspace config hash {mine[:16]} differs from the running "
        f"execution's ({theirs}); give the worker the same configs as the `mixseek exec` client"
    )


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
