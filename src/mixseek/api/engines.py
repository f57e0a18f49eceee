"""The engine an API execution runs on, chosen as `mixseek exec --engine/--workers/…` chooses it."""

from __future__ import annotations

import asyncio
import logging
import sys
from contextlib import AsyncExitStack
from typing import Any, TypedDict

from mixseek.config.bundle import ExecutionConfig
from mixseek.orchestrator.engine import Engine, EngineName, plan_engine


class EngineChoice(TypedDict, total=False):
    """The keyword arguments of `Mixseek.run`/`iter`/`resume` that choose the engine."""

    engine: Engine | EngineName | None
    temporal_address: str | None
    workers: int | None
    governor_listen: str | None


async def started_engine(stack: AsyncExitStack[Any], config: ExecutionConfig, choice: EngineChoice) -> Engine:
    """The chosen engine (default local) until `stack` closes, started off the event loop."""
    if unknown := choice.keys() - EngineChoice.__optional_keys__:
        raise TypeError(f"unexpected keyword argument {', '.join(map(repr, sorted(unknown)))}")
    engine = choice.get("engine")
    if engine is not None and not isinstance(engine, str):
        return engine
    address = choice.get("temporal_address")
    name = engine or ("temporal" if address is not None else "local")
    workers, listen = choice.get("workers"), choice.get("governor_listen")
    plan = await asyncio.to_thread(plan_engine, config, name, address, workers, listen)
    starting = plan.start(config, logging.getLogger(__name__).info, [sys.executable, "-m", "mixseek.cli"])
    entering = asyncio.ensure_future(asyncio.to_thread(starting.__enter__))

    async def leave(*exc: Any) -> None:
        await asyncio.wait([entering])
        if entering.exception() is None:
            await asyncio.to_thread(starting.__exit__, *exc)

    stack.push_async_exit(leave)
    return await asyncio.shield(entering)
