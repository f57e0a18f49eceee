"""Executions started from the browser: `mixseek exec` in a process and session of its own (it outlives the
dashboard, a reader of the store), no shell, prompt and reference on inherited descriptors, output in
`logs/ui-<execution_id>.log`; the id is chosen up front; `launch_state` tells of it until its row exists."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

import psutil

from mixseek.config.workspace import Workspace
from mixseek.orchestrator.execution_ids import is_valid_execution_id
from mixseek.orchestrator.orchestrator import new_execution_id
from mixseek.storage.lease import NotTheOwner, owner_process, this_host
from mixseek.storage.models import ExecutionLease
from mixseek.text_safety import strip_controls
from mixseek.ui.settings import UISettings

_TAIL_BYTES = 8192

_lock = threading.Lock()
_processes: dict[Path, subprocess.Popen[bytes]] = {}
"""The processes this server started that still run, by log file (an execution's latest start or
resume)."""


def log_path(workspace: Workspace, execution_id: str) -> Path:
    """Where the process started for `execution_id` writes its output."""
    if not is_valid_execution_id(execution_id):
        raise ValueError(f"not an execution id: {execution_id!r}")
    return workspace.logs / f"ui-{execution_id}.log"


def start_execution(
    settings: UISettings,
    prompt: str,
    config: Path,
    *,
    reference: str | None = None,
    execution_id: str | None = None,
) -> str:
    """Start an execution of `prompt` with orchestrator config `config` (as `mixseek exec`); its id."""
    execution_id = execution_id or new_execution_id()
    ws = settings.workspace
    argv = ["exec", "--prompt-file", "-", "--config", str(config), "-w", str(ws.root)]
    _spawn(settings, execution_id, [*argv, "--execution-id", execution_id], stdin=prompt, reference=reference)
    return execution_id


def resume_execution(settings: UISettings, execution_id: str, config: Path | None) -> None:
    """Continue an interrupted execution (`exec --resume`) with its config (None: the default)."""
    argv = ["exec", "--resume", execution_id, "-w", str(settings.workspace.root)]
    _spawn(settings, execution_id, argv if config is None else [*argv, "--config", str(config)])


def _spawn(
    settings: UISettings, execution_id: str, args: list[str], *, stdin: str = "", reference: str | None = None
) -> None:
    log = log_path(settings.workspace, execution_id)
    log.parent.mkdir(parents=True, exist_ok=True)
    # unnamed temporary files: nothing of them is left behind, whatever becomes of either process
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as key, log.open("ab") as output:
        _fill(given, stdin)
        passed: tuple[int, ...] = ()
        if reference is not None:  # the answer key: kept out of the command line any process can read
            _fill(key, reference)
            passed = (key.fileno(),)
            args = [*args, "--reference-file", f"/dev/fd/{key.fileno()}"]
        process = subprocess.Popen(
            [*settings.exec_argv, *args],
            stdin=given,
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=settings.workspace.root,
            start_new_session=True,
            pass_fds=passed,
        )
    with _lock:
        _processes[log] = process
    threading.Thread(
        target=_reap, args=(log, process), name=f"mixseek-exec-{execution_id}", daemon=True
    ).start()


def _fill(file: IO[bytes], text: str) -> None:
    """Write `text` (UTF-8) to `file` and rewind it, for the process to read from its start."""
    file.write(text.encode("utf-8"))
    file.seek(0)


def _reap(log: Path, process: subprocess.Popen[bytes]) -> None:
    """Wait for the process to end (no zombie) and forget it: `launch_state` reads ended ones alike."""
    process.wait()
    with _lock:
        if _processes.get(log) is process:
            del _processes[log]


StopOutcome = Literal["sent", "elsewhere"] | NotTheOwner


def interrupt_owner(owner: ExecutionLease) -> StopOutcome:
    """SIGINT to the process running an execution, so it ends interrupted: only one of this host matching the
    lease (pid, start time, command line); the outcome says why none was signalled."""
    if owner.host != this_host():
        return "elsewhere"
    process = owner_process(owner.pid, owner.process_started, owner.command_sha256)
    if isinstance(process, str):
        return process
    try:
        process.send_signal(signal.SIGINT)  # psutil refuses a pid reused since `process` was found
    except psutil.NoSuchProcess:
        return "gone"
    except psutil.AccessDenied:
        return "denied"
    return "sent"


@dataclass(frozen=True)
class LaunchState:
    """A process started for an execution whose row is not in the store (yet)."""

    running: bool
    last_line: str
    """What the process wrote last (for an ended one: why it ended), controls removed."""


def launch_state(workspace: Workspace, execution_id: str) -> LaunchState | None:
    """The state of the process started for `execution_id`; None if the dashboard started none."""
    if not is_valid_execution_id(execution_id):
        return None
    log = log_path(workspace, execution_id)
    with _lock:
        process = _processes.get(log)
    try:
        last = _last_line(log)
    except FileNotFoundError:
        return None
    return LaunchState(running=process is not None and process.returncode is None, last_line=last)


def _last_line(log: Path) -> str:
    with log.open("rb") as fh:
        size = fh.seek(0, 2)
        fh.seek(max(0, size - _TAIL_BYTES))
        tail = fh.read().decode("utf-8", errors="replace")
    lines = [strip_controls(line).strip() for line in tail.splitlines()]
    return next((line for line in reversed(lines) if line), "")
