"""`run_python` against code that tries to get out: daemons, fork bombs, the network, the host's files.

Every fork bomb here is bounded (at most 200 processes, whatever the sandbox does), so a broken
cap can never take the machine down; the cap it must meet is 32.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import textwrap
import uuid
from pathlib import Path

import duckdb
import pytest
from code_exec_support import SLEEP, new_marker, pids_with, require_sandbox, wait_gone, wait_until

from mixseek.agents.member.code_exec_tool import ExecutionResult, run_python
from mixseek.config.member_options import CodeExecOptions

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux namespaces, /proc and rlimits")

BOMB_ATTEMPTS = 200
CAP = 32


async def run(code: str, **options: object) -> ExecutionResult:
    return await run_python(textwrap.dedent(code), CodeExecOptions.model_validate(options))


@pytest.fixture(params=["process", "bubblewrap"])
def sandbox(request: pytest.FixtureRequest) -> str:
    return require_sandbox(str(request.param))


def daemon_code(marker: str, late_file: Path) -> str:
    """Double fork + setsid: a `sh` named `marker` that writes `late_file` a second after the run."""
    return f"""\
        import os
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 1; echo late > {late_file}', {marker!r}])
            os._exit(0)
        os.wait()
        print('daemon started')
        """


async def test_a_double_forked_setsid_daemon_dies_with_the_run(sandbox: str, tmp_path: Path) -> None:
    marker = new_marker()
    late_file = tmp_path / "late.txt"
    result = await run(daemon_code(marker, late_file), sandbox=sandbox, timeout_seconds=60)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "daemon started\n"
    assert await wait_gone(marker), "the daemon outlived the run"
    assert not late_file.exists()


def bomb_code(marker: str, ready: str) -> str:
    """Forks up to BOMB_ATTEMPTS sleepers named `marker`, reports, renames itself `ready`, waits."""
    return f"""\
        import ctypes, os
        forked = failed = 0
        for _ in range({BOMB_ATTEMPTS}):
            try:
                pid = os.fork()
            except OSError:
                failed += 1
                continue
            if pid == 0:
                try:
                    os.execv({SLEEP!r}, [{marker!r}, '300'])
                finally:
                    os._exit(1)
            forked += 1
        print('forked', forked, 'failed', failed, flush=True)
        ctypes.CDLL(None).prctl(15, {ready.encode()!r}, 0, 0, 0)  # PR_SET_NAME: the test sees it is done
        os.wait()  # until the test ends one sleeper
        """


def duckdb_write(path: Path) -> int:
    """A multi-threaded DuckDB write and read in this process (what other teams do meanwhile)."""
    with duckdb.connect(str(path)) as db:
        db.execute("SET threads = 4")
        db.execute("CREATE TABLE t AS SELECT range AS i FROM range(200000)")
        row = db.execute("SELECT count(*) FROM t").fetchone()
    assert row is not None
    return int(row[0])


async def test_a_fork_bomb_is_contained_while_other_work_goes_on(sandbox: str, tmp_path: Path) -> None:
    marker, ready = new_marker(), f"r{uuid.uuid4().hex[:12]}"
    bomb = asyncio.create_task(
        run(bomb_code(marker, ready), sandbox=sandbox, max_processes=CAP, timeout_seconds=300)
    )
    try:
        assert await wait_until(lambda: pids_with(ready), within=120), "the bomb never finished forking"
        assert 0 < len(pids_with(marker)) < CAP

        # Meanwhile: another run_python call, and a DuckDB write in this process, both succeed.
        other = await run(
            f"import subprocess\nsubprocess.run([{SLEEP!r}, '0'], check=True)\nprint('other run ok')",
            sandbox=sandbox,
            max_processes=8,
            timeout_seconds=120,
        )
        assert (other.exit_code, other.stdout) == (0, "other run ok\n"), other.stderr
        assert await asyncio.to_thread(duckdb_write, tmp_path / "other_team.duckdb") == 200000

        os.kill(pids_with(marker)[0], signal.SIGKILL)  # lets the bomb's os.wait() return
        result = await bomb
    finally:
        bomb.cancel()
    assert result.exit_code == 0, result.stderr
    _, forked, _, failed = result.stdout.split()
    assert int(forked) < CAP
    assert int(forked) + int(failed) == BOMB_ATTEMPTS
    assert await wait_gone(marker), "sleepers of the bomb outlived the run"


async def test_bubblewrap_refuses_the_network() -> None:
    require_sandbox("bubblewrap")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        result = await run(
            f"""\
            import socket
            try:
                socket.create_connection(('127.0.0.1', {port}), timeout=30)
                print('connected')
            except OSError as exc:
                print(type(exc).__name__)
            """,
            sandbox="bubblewrap",
        )
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever reached the host's loopback
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "ConnectionRefusedError\n"


async def test_bubblewrap_keeps_host_files_out_of_reach(tmp_path: Path) -> None:
    require_sandbox("bubblewrap")
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    project = Path.cwd() / "pyproject.toml"
    assert project.exists()
    result = await run(
        f"""\
        for path in ({str(secret)!r}, {str(project)!r}, '/etc/passwd'):
            try:
                open(path).read()
                print('read', path)
            except OSError as exc:
                print(type(exc).__name__)
        for path in ('/written.txt', '/usr/written.txt', {str(Path(sys.prefix) / "written.txt")!r}):
            try:
                open(path, 'w').write('x')
                print('wrote', path)
            except OSError as exc:
                print(type(exc).__name__)
        open('/tmp/scratch.txt', 'w').write('ok')
        open('/sandbox/work.txt', 'w').write('ok')
        print(open('/tmp/scratch.txt').read())
        """,
        sandbox="bubblewrap",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "FileNotFoundError",
        "FileNotFoundError",
        "FileNotFoundError",
        "OSError",
        "OSError",
        "OSError",
        "ok",
    ]
