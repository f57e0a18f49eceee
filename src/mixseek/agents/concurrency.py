"""Running a team's members or a step's executors at once, a bounded number at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


async def run_bounded(jobs: Sequence[Callable[[], Awaitable[T]]], slots: asyncio.Semaphore | int) -> list[T]:
    """Every job started at once, each while holding one of `slots` (a shared semaphore or a count); results
    in `jobs` order. Jobs record their own failures; one that raises anyway cancels the others and is raised
    as itself, not in an exception group."""
    if isinstance(slots, int):
        slots = asyncio.Semaphore(slots)

    async def hold(job: Callable[[], Awaitable[T]]) -> T:
        async with slots:
            return await job()

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(hold(job)) for job in jobs]
    except BaseExceptionGroup as group_error:
        raise group_error.exceptions[0] from None
    return [task.result() for task in tasks]
