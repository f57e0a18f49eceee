"""Who runs an execution: one owner at a time, recorded in the store as a lease. Two `exec --resume` of one
execution would pay every model twice, and a killed process would leave it `running` for ever. An owner on
this host is alive if its pid runs with the same start time; on another host, if its heartbeat is recent."""

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


def command_digest(cmdline: Sequence[str]) -> str:
    """A digest of a command line: tells whether a pid still runs it, keeps the prompt out of the store."""
    joined = "\0".join(cmdline).encode("utf-8", "surrogateescape")
    return hashlib.sha256(joined).hexdigest()


def _identity(pid: int) -> tuple[float | None, str | None]:
    """A process's start time and command digest (None where unreadable)."""
    # psutil loads here, not with the store: a reader of ended executions never asks about a process
    import psutil

    try:
        process = psutil.Process(pid)
        started = process.create_time()
    except psutil.Error:
        return None, None
    try:
        return started, command_digest(process.cmdline())
    except psutil.Error:
        return started, None


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
        return cls(pid, this_host(), secrets.token_hex(16), *_identity(pid))


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


# Why `owner_process` found no process to signal (a reused pid is "gone"; "denied": another user's)
NotTheOwner = Literal["gone", "unverifiable", "another-command", "denied"]


def owner_process(
    pid: int, process_started: float | None, command_sha256: str | None
) -> psutil.Process | NotTheOwner:
    """The process holding a lease, only if its pid, start time and command line all match (Stop)."""
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
