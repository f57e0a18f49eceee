"""Who runs an execution: one owner at a time, recorded in the store as a lease.

Why: two `exec --resume` of one execution would both call every model and
pay twice, and a killed process would leave its execution `running` for
ever. The process that creates or resumes an execution writes who it is
(pid, host, its process's start time, a random token) in the same
transaction as the status change, refreshes the heartbeat while it runs
and deletes the lease when it finishes.

Whether an owner is still alive is decided by whoever reads the lease: on
the same host by asking the operating system about the pid (a pid reused
by another program shows another start time); on another host by the age
of the heartbeat, since only the owner's host can see its processes.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from mixseek.storage.errors import StorageError
from mixseek.storage.models import ExecutionLease

if TYPE_CHECKING:
    import psutil

HEARTBEAT_SECONDS = 10.0
# An owner on another host whose heartbeat is older than this is taken for dead.
STALE_AFTER_SECONDS = 3 * HEARTBEAT_SECONDS
# Start times read twice for one process agree far better than this; a reused pid does not.
_START_TOLERANCE_SECONDS = 1.0


def _process_started(pid: int) -> float | None:
    # psutil loads here, not with the store: a reader of ended executions never asks about a process
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def this_host() -> str:
    return socket.gethostname()


@dataclass(frozen=True)
class ExecutionOwner:
    """The identity a process writes into the lease; `token` tells two owners in one process apart."""

    pid: int
    host: str
    token: str
    process_started: float | None

    @classmethod
    def this_process(cls) -> ExecutionOwner:
        pid = os.getpid()
        return cls(pid, this_host(), secrets.token_hex(16), _process_started(pid))


def _process_alive(pid: int, started: float | None) -> bool:
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:  # killed, not yet reaped by its parent
            return False
        return started is None or abs(process.create_time() - started) < _START_TOLERANCE_SECONDS
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:  # it exists: another user's process
        return True


def owner_process(pid: int, process_started: float | None) -> psutil.Process | None:
    """The process of this host that holds a lease (pid and start time as written in it), if it
    still runs: to signal it (a dashboard's Stop), never another program that got the pid since."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        if (
            process_started is not None
            and abs(process.create_time() - process_started) >= _START_TOLERANCE_SECONDS
        ):
            return None
        return process
    except psutil.NoSuchProcess:
        return None


def owner_alive(
    pid: int, host: str, process_started: float | None, heartbeat_at: datetime, now: datetime
) -> bool:
    """Whether the process that holds a lease still runs (see the module docstring)."""
    if host == this_host():
        return _process_alive(pid, process_started)
    return (now - heartbeat_at).total_seconds() < STALE_AFTER_SECONDS


class ExecutionOwnedError(StorageError):
    """Another process owns the execution (or, with `lease` None, nobody does any more)."""

    def __init__(self, execution_id: str, lease: ExecutionLease | None) -> None:
        self.execution_id = execution_id
        self.lease = lease
        if lease is None:
            message = f"execution '{execution_id}' is not owned by this process"
        else:
            message = (
                f"execution '{execution_id}' is running in process {lease.pid} on host {lease.host} "
                f"since {lease.acquired_at:%Y-%m-%d %H:%M:%S} UTC"
            )
        super().__init__(message)
