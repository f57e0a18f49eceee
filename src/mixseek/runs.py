"""Reading a workspace's stored executions from Python, as `mixseek runs` and the dashboard do: the store is
opened read-only (safe beside a running `exec`), read in the calling thread, and closed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mixseek.config.workspace import Workspace
from mixseek.errors import InputError

if TYPE_CHECKING:
    from mixseek.storage.models import ExecutionStatus
    from mixseek.storage.views import ExecutionOverview, ExecutionView


class UnknownExecution(InputError):
    """The workspace's store holds no execution by that id."""


def store_file(workspace: str | os.PathLike[str]) -> Path:
    """The workspace's store file, whether it exists or not; InputError if there is no such directory."""
    root = Path(workspace).expanduser().resolve()
    if not root.is_dir():
        raise InputError(f"workspace: {root} is not a directory (run 'mixseek init')")
    return Workspace(root).db_path


def list_executions(
    workspace: str | os.PathLike[str], *, status: ExecutionStatus | None = None, limit: int | None = None
) -> list[ExecutionOverview]:
    """The workspace's executions (of `status`, at most `limit`), newest first; InputError if bad."""
    from mixseek.storage.listing import list_overviews
    from mixseek.storage.quick_read import read_once
    from mixseek.storage.schema import EXECUTION_STATUSES

    if status is not None and status not in EXECUTION_STATUSES:
        raise InputError(f"status: must be one of {', '.join(EXECUTION_STATUSES)} (got {status!r})")
    if limit is not None and limit < 1:
        raise InputError(f"limit: must be at least 1 (got {limit})")
    db = store_file(workspace)
    if not db.exists():  # anything else there (a directory, a damaged file) is reported by the store
        raise InputError(f"{db}: no such store file (no execution has run in this workspace)")
    return read_once(db, lambda conn: list_overviews(conn, limit, status))


def read_execution(workspace: str | os.PathLike[str], execution_id: str) -> ExecutionView:
    """Everything stored about one execution, also while it runs; UnknownExecution if none."""
    from mixseek.storage.quick_read import read_once
    from mixseek.storage.read_model import read_execution as read_view

    db = store_file(workspace)
    view = read_once(db, lambda conn: read_view(conn, execution_id)) if db.exists() else None
    if view is None:
        raise UnknownExecution(f"no execution '{execution_id}' in {db}")
    return view
