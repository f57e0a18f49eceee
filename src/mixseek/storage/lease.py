"""Who runs an execution: one owner at a time, recorded in the store as a lease.

Why: two `exec --resume` of one execution would both call every model and
pay twice, and a killed process would leave its execution `running` for
ever. The process that creates or resumes an execution writes who it is
(pid, host, its process's start time, a digest of its command line, a
random token) in the same transaction as the status change, refreshes the heartbeat while it runs
and deletes the lease when it finishes.

Whether an owner is still alive is decided by whoever reads the lease: on
the same host by asking the operating system about the pid (a pid reused
by another program shows another start time); on another host by the age
of the heartbeat, since only the owner's host can see its processes.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

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


def command_digest(cmdline: Sequence[str]) -> str:
    """A digest of a command line: enough to tell whether a pid still runs the same command, and
    the command itself (a prompt given as an argument, paths) stays out of the store."""
    joined = "\0".join(cmdline).encode("utf-8", "surrogateescape")
    return hashlib.sha256(joined).hexdigest()


def _process_command(pid: int) -> str | None:
    import psutil

    try:
        return command_digest(psutil.Process(pid).cmdline())
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
    command_sha256: str | None = None
    """`command_digest` of the process's command line; None where it could not be read."""

    @classmethod
    def this_process(cls) -> ExecutionOwner:
        pid = os.getpid()
        return cls(pid, this_host(), secrets.token_hex(16), _process_started(pid), _process_command(pid))


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


NotTheOwner = Literal["gone", "unverifiable", "another-command", "denied"]
"""Why `owner_process` found no process to signal: none runs with the lease's pid (or the one that
does started at another time: the owner ended and the pid was reused); the lease does not record
the start time or command to check the process against; the process runs another command; or it
belongs to another user, whose command line cannot be read."""


def owner_process(
    pid: int, process_started: float | None, command_sha256: str | None
) -> psutil.Process | NotTheOwner:
    """The process of this host that holds a lease, if it is the one the lease names — its pid,
    start time and command line all as written in the lease — to signal it (a dashboard's Stop);
    never another program, which is why a lease that does not record all three names none."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return "gone"
        if process_started is None or command_sha256 is None:
            return "unverifiable"
        if abs(process.create_time() - process_started) >= _START_TOLERANCE_SECONDS:
            return "gone"
        if command_digest(process.cmdline()) != command_sha256:
            return "another-command"
        return process
    except psutil.NoSuchProcess:
        return "gone"
    except psutil.AccessDenied:
        return "denied"


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
