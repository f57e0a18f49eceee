"""What the code-exec tests share: the sandboxes to run in, and watching processes from the host."""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mixseek.agents.member.code_exec_tool import CodeExecError, resolve_sandbox

SLEEP = shutil.which("sleep") or "/bin/sleep"


@functools.cache
def bubblewrap_problem() -> str | None:
    """Why bubblewrap cannot run this interpreter here, or None when it can."""
    with ThreadPoolExecutor(1) as pool:  # a thread of its own: callers may be running an event loop
        future = pool.submit(asyncio.run, resolve_sandbox("bubblewrap", sys.executable))
        try:
            future.result()
        except CodeExecError as exc:
            return str(exc)
    return None


def require_sandbox(mode: str) -> str:
    """`mode`, or skip the test with the reason when it is bubblewrap and bubblewrap is unusable."""
    if mode == "bubblewrap" and (problem := bubblewrap_problem()) is not None:
        pytest.skip(f"bubblewrap is not usable here ({problem}); CI installs it (.ci/run)")
    return mode


def new_marker() -> str:
    """A name for processes a test starts, unique on this host, to find them in /proc."""
    return f"mxsk-{uuid.uuid4().hex[:12]}"


def pids_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line or name contains `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            proc = Path("/proc", name)
            text = proc.joinpath("cmdline").read_bytes() + proc.joinpath("comm").read_bytes()
            state = proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in text and state != "Z":
            found.append(int(name))
    return found


async def wait_until(condition: object, within: float = 60.0) -> bool:
    """Poll `condition()` until it is true; the bound is generous, a loaded machine is slow."""
    assert callable(condition)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.05)
    return bool(condition())


async def wait_gone(marker: str, within: float = 30.0) -> bool:
    """True once no process with `marker` is left."""
    return await wait_until(lambda: not pids_with(marker), within)
