"""What the action tests share: a workspace whose executions run scripted models in real
`mixseek exec` processes, a form-posting client, and polling the store with generous deadlines."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
import psutil
import pytest

from e2e.scripted import write_workspace
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.errors import StoreBusyError
from mixseek.storage.models import ExecutionRecord

RUNNER = Path(__file__).parents[1] / "e2e" / "run_scripted.py"
DEADLINE_SECONDS = 300.0
TWO_ROUNDS = "two-rounds.toml"
"""A second orchestrator config (the workspace's default runs up to four rounds)."""

T = TypeVar("T")


def scripted_argv() -> list[str]:
    """`mixseek` with the scripted models of tests/e2e/scripted.py: no model is called over the network."""
    return [sys.executable, str(RUNNER)]


def actions_workspace(root: Path) -> Path:
    ws = write_workspace(root, max_rounds=4)
    default = (ws / "configs" / "orchestrator.toml").read_text(encoding="utf-8")
    (ws / "configs" / TWO_ROUNDS).write_text(
        default.replace("max_rounds = 4", "max_rounds = 2"), encoding="utf-8"
    )
    return ws


def wait_until(what: str, check: Callable[[], T | None], seconds: float = DEADLINE_SECONDS) -> T:
    """`check()`'s first value that is not None, polled; fails after `seconds` (generous: the
    box may be loaded, and no result depends on how fast it is)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def record(ws: Path, execution_id: str) -> ExecutionRecord | None:
    """The execution as a reader sees it (None if the store does not hold it, or is busy)."""
    db = ws / "mixseek.db"
    if not db.exists():
        return None

    async def read() -> ExecutionRecord | None:
        async with AggregationStore(db, read_only=True) as store:
            return await store.get_execution(execution_id)

    # in a thread of its own: a browser test's thread runs Playwright's event loop
    with ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(asyncio.run, read()).result()
        except StoreBusyError:
            return None


def status_becomes(ws: Path, execution_id: str, status: str) -> ExecutionRecord:
    def check() -> ExecutionRecord | None:
        found = record(ws, execution_id)
        return found if found is not None and found.status == status else None

    return wait_until(f"execution {execution_id} to be {status}", check)


@dataclass
class Gate:
    """Leaders of round `at` and later wait until `path` exists (tests/e2e/run_scripted.py): an
    execution kept running mid-round for as long as a test needs, whatever the machine's speed."""

    path: Path
    at: int = 2

    @property
    def reached(self) -> bool:
        return self.path.with_name(self.path.name + ".waiting").exists()

    def open(self) -> None:
        self.path.touch()


def gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """A `gate` fixture's body: the gate for every execution the dashboard starts in the test
    (they inherit the environment). At the end it opens, and any execution process still running
    is ended."""
    found = Gate(tmp_path / "gate")
    monkeypatch.setenv("SCRIPTED_GATE", str(found.path))
    monkeypatch.setenv("SCRIPTED_GATE_AT", str(found.at))
    yield found
    found.open()
    for child in psutil.Process().children(recursive=True):
        if str(RUNNER) in " ".join(_cmdline(child)):
            try:
                child.kill()
                child.wait(timeout=60)
            except psutil.Error:  # it ended meanwhile
                pass


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


class Browserless:
    """A client of the dashboard that posts forms as its pages do: with the CSRF cookie the
    dashboard set and the same token in the `csrf_token` field."""

    def __init__(self, url: str) -> None:
        self.client = httpx.Client(base_url=url, timeout=120)
        self.port = httpx.URL(url).port

    def get(self, path: str) -> httpx.Response:
        return self.client.get(path)

    @property
    def csrf(self) -> str:
        if f"mixseek-csrf-{self.port}" not in self.client.cookies:
            self.client.get("/new")
        return self.client.cookies[f"mixseek-csrf-{self.port}"]

    def post(self, path: str, data: dict[str, str] | None = None, *, token: bool = True) -> httpx.Response:
        fields = dict(data or {})
        if token:
            fields["csrf_token"] = self.csrf
        return self.client.post(path, data=fields)

    def close(self) -> None:
        self.client.close()
