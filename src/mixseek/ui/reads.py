"""Store reads for one request, read-only and closed at once (others write); no store: no executions yet."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar, cast

from starlette.requests import Request

from mixseek.runs import list_executions, read_execution
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.views import ExecutionOverview, ExecutionView
from mixseek.ui.settings import UISettings

T = TypeVar("T")


def ui_settings(request: Request) -> UISettings:
    return cast(UISettings, request.app.state.settings)


def db_path(request: Request) -> Path:
    return ui_settings(request).db_path


async def read_store(db: Path, read: Callable[[AggregationStore], Awaitable[T]], empty: T) -> T:
    """`read(store)` on the store at `db`, opened read-only and closed; `empty` without a file."""
    if not db.exists():  # anything else there (a directory, a damaged file) is reported by the store
        return empty
    async with AggregationStore(db, read_only=True) as store:
        return await read(store)


async def overviews(db: Path, limit: int) -> list[ExecutionOverview]:
    """The `limit` most recently started executions, newest first (`mixseek.runs`, off the loop)."""
    return await asyncio.to_thread(list_executions, db.parent, limit=limit) if db.exists() else []


async def execution_view(db: Path, execution_id: str) -> ExecutionView:
    """Everything stored about one execution; `mixseek.runs.UnknownExecution` (a 404) if none by that id."""
    return await asyncio.to_thread(read_execution, db.parent, execution_id)
