"""`run_python`: real subprocesses, no mocks."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from mixseek.agents.member.code_exec_tool import (
    NOFILE_LIMIT,
    CodeExecError,
    ExecutionResult,
    output_kill_bytes,
    run_python,
)
from mixseek.agents.member.options import CodeExecOptions

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups and rlimits")


def opts(**kwargs: object) -> CodeExecOptions:
    return CodeExecOptions.model_validate({"timeout_seconds": 10.0, **kwargs})


async def run(code: str, **kwargs: object) -> ExecutionResult:
    return await run_python(textwrap.dedent(code), opts(**kwargs))


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def wait_dead(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return not alive(pid)


async def wait_for_file(path: Path, within: float = 10.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} was not written")


# --- exit status ------------------------------------------------------------------------------------


async def test_success_captures_stdout_exactly() -> None:
    result = await run("print('hello')\nprint(6 * 7)\n")
    assert result.exit_code == 0
    assert result.ok
    assert result.stdout == "hello\n42\n"
    assert result.stderr == ""
    assert not (result.timed_out or result.memory_exceeded or result.output_limit_exceeded)
    assert not (result.stdout_truncated or result.stderr_truncated)
    assert result.duration_ms >= 0
    assert result.as_tool_text() == "status: exit code 0\n--- stdout ---\nhello\n42\n--- stderr ---\n(empty)"


async def test_exception_is_a_result_with_traceback_naming_the_script_line() -> None:
    result = await run(
        """\
        x = 1
        y = 2
        raise ValueError('boom')
        """
    )
    assert result.exit_code == 1
    assert not result.ok
    assert "main.py" in result.stderr
    assert "line 3" in result.stderr
    assert result.stderr.rstrip().endswith("ValueError: boom")
    assert not result.memory_exceeded
    assert result.as_tool_text().startswith("status: exit code 1\n")


async def test_sys_exit_code_is_reported() -> None:
    result = await run("import sys\nprint('bye')\nsys.exit(3)\n")
    assert result.exit_code == 3
    assert result.stdout == "bye\n"
    assert "exit code 3" in result.as_tool_text()


async def test_death_by_signal_is_reported() -> None:
    result = await run("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    assert result.exit_code == -signal.SIGSEGV
    assert not result.memory_exceeded
    assert result.status() == "killed by signal SIGSEGV"


async def test_syntax_error_is_a_result() -> None:
    result = await run("def f(:\n")
    assert result.exit_code == 1
    assert "SyntaxError" in result.stderr


# --- timeout and process group ------------------------------------------------------------------------


async def test_infinite_loop_times_out_promptly() -> None:
    started = time.monotonic()
    result = await run("print('started', flush=True)\nwhile True:\n    pass\n", timeout_seconds=1.0)
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert result.exit_code is None
    assert elapsed < 2.0
    assert result.stdout == "started\n"  # output before the hang is kept
    assert result.as_tool_text().startswith("status: timed out after 1.0 s")


async def test_timeout_kills_spawned_grandchild() -> None:
    result = await run(
        """\
        import subprocess, time
        child = subprocess.Popen(['sleep', '100'])
        print(child.pid, flush=True)
        time.sleep(100)
        """,
        timeout_seconds=1.0,
    )
    assert result.timed_out
    pid = int(result.stdout.split()[0])
    assert await wait_dead(pid), f"grandchild {pid} survived the timeout"


async def test_background_child_is_killed_when_the_script_exits() -> None:
    # The `sleep` inherits stdout; the run must still end when the script does, not when the pipe closes.
    started = time.monotonic()
    result = await run(
        """\
        import subprocess
        child = subprocess.Popen(['sleep', '100'])
        print(child.pid)
        """,
        timeout_seconds=30.0,
    )
    assert time.monotonic() - started < 5.0
    assert result.exit_code == 0
    assert not result.timed_out
    assert await wait_dead(int(result.stdout.split()[0]))


async def test_cancellation_kills_the_process_group_and_cleans_up(tmp_path: Path) -> None:
    marker = tmp_path / "pids.txt"
    code = f"""\
        import os, subprocess, time
        child = subprocess.Popen(['sleep', '100'])
        with open({str(marker) + ".tmp"!r}, 'w') as f:
            f.write(f'{{os.getpid()}} {{child.pid}} {{os.getcwd()}}')
        os.replace({str(marker) + ".tmp"!r}, {str(marker)!r})
        time.sleep(100)
        """
    task = asyncio.create_task(run(code, timeout_seconds=60.0))
    own_pid, child_pid, workdir = (await wait_for_file(marker)).split(" ", 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_dead(int(own_pid)), "the script survived cancellation"
    assert await wait_dead(int(child_pid)), "its child survived cancellation"
    assert not Path(workdir).exists()


# --- output cap ---------------------------------------------------------------------------------------


async def test_huge_single_write_is_truncated_with_bounded_memory() -> None:
    tracemalloc.start()
    try:
        started = time.monotonic()
        result = await run(
            "print('x' * 10**8)\n", max_output_chars=1000, memory_mb=1024, timeout_seconds=30.0
        )
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.stdout == "x" * 1000
    assert result.stdout_truncated
    assert result.output_limit_exceeded
    assert result.exit_code is None
    assert output_kill_bytes(opts(max_output_chars=1000)) < result.stdout_bytes < 10**8
    assert elapsed < 10.0
    assert peak < 16 * 1024 * 1024, f"parent peaked at {peak} bytes"
    text = result.as_tool_text()
    assert text.startswith("status: killed: output limit")
    assert "stdout truncated" in text


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
async def test_endless_print_loop_is_killed_at_the_output_limit(stream: str) -> None:
    started = time.monotonic()
    result = await run(
        f"import sys\nwhile True:\n    print('spam', file=sys.{stream})\n",
        max_output_chars=100,
        timeout_seconds=30.0,
    )
    assert time.monotonic() - started < 15.0
    assert result.output_limit_exceeded
    assert not result.timed_out
    assert result.exit_code is None
    text, truncated = getattr(result, stream), getattr(result, f"{stream}_truncated")
    assert truncated
    assert len(text) == 100
    assert text.startswith("spam\nspam\n")
    assert getattr(result, f"{stream}_bytes") > output_kill_bytes(opts(max_output_chars=100))


async def test_output_over_the_cap_but_under_the_kill_limit_runs_to_completion() -> None:
    result = await run(
        "print('a' * 3000 + 'END')\nimport sys\nprint('x' * 50 + 'BOOM', file=sys.stderr)\n",
        max_output_chars=1000,
    )
    assert result.exit_code == 0
    assert not result.output_limit_exceeded
    assert result.stdout_truncated
    assert result.stdout == "a" * 1000
    assert result.stdout_tail.endswith("aEND\n")
    assert len(result.stdout_tail) == 250
    assert result.stdout_bytes == 3004
    assert not result.stderr_truncated
    assert result.stderr == "x" * 50 + "BOOM\n"
    assert "showing the first 1000 characters and the last 250" in result.as_tool_text()


async def test_cap_counts_characters_not_bytes() -> None:
    result = await run("print('あ' * 5000)\n", max_output_chars=100)
    assert result.stdout == "あ" * 100
    assert result.stdout_truncated
    assert result.stdout_tail == "あ" * 24 + "\n"


async def test_traceback_at_the_end_of_a_long_stderr_is_kept_in_the_tail() -> None:
    result = await run(
        """\
        import sys
        for i in range(2000):
            print('warning', i, file=sys.stderr)
        raise KeyError('last')
        """,
        max_output_chars=2000,
    )
    assert result.exit_code == 1
    assert result.stderr_truncated
    assert result.stderr.startswith("warning 0\n")
    assert result.stderr_tail.rstrip().endswith("KeyError: 'last'")
    assert "KeyError: 'last'" in result.as_tool_text()


# --- memory -----------------------------------------------------------------------------------------


async def test_memory_bomb_reports_memory_error() -> None:
    result = await run("data = bytearray(2 * 1024**3)\nprint('allocated')\n", memory_mb=256)
    assert result.exit_code == 1
    assert result.memory_exceeded
    assert "MemoryError" in result.stderr
    assert result.stdout == ""
    assert result.as_tool_text().startswith("status: MemoryError: memory limit 256 MB exceeded")


async def test_allocation_within_the_limit_succeeds() -> None:
    result = await run("data = bytearray(100 * 1024**2)\nprint(len(data))\n", memory_mb=512)
    assert result.exit_code == 0
    assert result.stdout == f"{100 * 1024**2}\n"
    assert not result.memory_exceeded


async def test_memory_error_subclass_counts_as_memory_exceeded() -> None:
    # numpy reports failed allocations as numpy.core._exceptions._ArrayMemoryError.
    result = await run(
        "class _ArrayMemoryError(MemoryError):\n    pass\nraise _ArrayMemoryError('Unable to allocate')\n"
    )
    assert result.exit_code == 1
    assert result.memory_exceeded


async def test_caught_memory_error_is_not_memory_exceeded() -> None:
    result = await run(
        """\
        try:
            bytearray(2 * 1024**3)
        except MemoryError:
            print('too big, using less')
        """,
        memory_mb=256,
    )
    assert result.exit_code == 0
    assert not result.memory_exceeded
    assert result.stdout == "too big, using less\n"


async def test_resource_limits_are_set_in_the_child() -> None:
    result = await run(
        """\
        import resource as r
        for name in ('RLIMIT_AS', 'RLIMIT_CORE', 'RLIMIT_CPU', 'RLIMIT_NOFILE'):
            print(name, *r.getrlimit(getattr(r, name)))
        """,
        memory_mb=300,
        timeout_seconds=4.5,
    )
    assert result.exit_code == 0, result.stderr
    limits = {name: (int(soft), int(hard)) for name, soft, hard in map(str.split, result.stdout.splitlines())}
    assert limits["RLIMIT_AS"] == (300 * 1024**2, 300 * 1024**2)
    assert limits["RLIMIT_CORE"] == (0, 0)
    assert limits["RLIMIT_CPU"] == (6, 7)
    assert limits["RLIMIT_NOFILE"] == (NOFILE_LIMIT, NOFILE_LIMIT)


# --- isolation ----------------------------------------------------------------------------------------


async def test_runs_in_a_temporary_directory_that_is_removed() -> None:
    repo_cwd = Path.cwd()
    result = await run(
        """\
        import os
        with open('out.txt', 'w') as f:
            f.write('data')
        os.mkdir('sub')
        os.chmod('sub', 0)
        print(os.getcwd())
        print(os.environ['HOME'])
        print(os.environ['TMPDIR'])
        print(sorted(os.listdir('.')))
        """
    )
    assert result.exit_code == 0, result.stderr
    workdir, home, tmpdir, listing = result.stdout.splitlines()
    assert Path(workdir) != repo_cwd
    assert home == tmpdir == workdir
    assert listing == "['main.py', 'out.txt', 'sub']"
    assert not Path(workdir).exists()
    assert not (repo_cwd / "out.txt").exists()


async def test_parent_environment_is_not_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-test-value")
    monkeypatch.setenv("PYTHONPATH", "/nonexistent-injected")
    result = await run(
        """\
        import os, sys
        print(os.environ.get('OPENAI_API_KEY'))
        print(sorted(os.environ))
        print(sys.flags.isolated, '/nonexistent-injected' in sys.path)
        """
    )
    assert result.exit_code == 0, result.stderr
    key, names, flags = result.stdout.splitlines()
    assert key == "None"
    assert "sk-secret" not in result.stdout
    assert names == str(sorted(["HOME", "LANG", "LC_ALL", "PATH", "PYTHONIOENCODING", "TMPDIR"]))
    assert flags == "1 False"


async def test_stdin_is_closed() -> None:
    result = await run(
        """\
        try:
            input()
        except EOFError:
            print('EOF')
        """
    )
    assert result.exit_code == 0
    assert result.stdout == "EOF\n"


async def test_unicode_round_trips() -> None:
    result = await run("import sys\nprint('こんにちは、世界 🌏')\nprint('エラー', file=sys.stderr)\n")
    assert result.exit_code == 0
    assert result.stdout == "こんにちは、世界 🌏\n"
    assert result.stderr == "エラー\n"
    assert "こんにちは" in result.as_tool_text()


async def test_concurrent_runs_are_independent() -> None:
    codes = [
        f"import os, time\nopen('mine.txt', 'w').write('{i}')\ntime.sleep(0.3)\n"
        f"print({i}, open('mine.txt').read(), os.getcwd())\n"
        for i in range(4)
    ]
    results = await asyncio.gather(*(run(code) for code in codes))
    workdirs = set()
    for i, result in enumerate(results):
        assert result.exit_code == 0, result.stderr
        number, written, workdir = result.stdout.split()
        assert number == written == str(i)
        workdirs.add(workdir)
        assert not Path(workdir).exists()
    assert len(workdirs) == 4


# --- interpreter failures -----------------------------------------------------------------------------


async def test_missing_interpreter_raises() -> None:
    with pytest.raises(CodeExecError, match="cannot start the Python interpreter"):
        await run("print(1)", python_executable="/nonexistent/bin/python3")


async def test_interpreter_given_by_name_is_looked_up_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result = await run("import sys\nprint(sys.version_info[0])", python_executable=Path(sys.executable).name)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "3\n"


async def test_unknown_interpreter_name_raises() -> None:
    with pytest.raises(CodeExecError, match="not found on PATH"):
        await run("print(1)", python_executable="no-such-python-3.99")


async def test_non_python_interpreter_raises() -> None:
    with pytest.raises(CodeExecError, match="did not run the sandbox bootstrap"):
        await run("print(1)", python_executable="/bin/true")


async def test_no_temp_dirs_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # other runs may share the system temp dir
    with pytest.raises(CodeExecError):
        await run("print(1)", python_executable="/nonexistent/bin/python3")
    with pytest.raises(CodeExecError):
        await run("print(1)", python_executable="/bin/true")
    await run("while True: pass", timeout_seconds=0.5)
    await run("raise SystemExit(2)")
    assert list(tmp_path.iterdir()) == []


# --- tool text ----------------------------------------------------------------------------------------


def test_tool_text_status_lines() -> None:
    base: dict[str, Any] = {"stdout": "", "stderr": "", "timeout_seconds": 2.0, "memory_mb": 256}
    assert (
        ExecutionResult(exit_code=None, timed_out=True, **base).status().startswith("timed out after 2.0 s")
    )
    assert (
        ExecutionResult(exit_code=1, memory_exceeded=True, **base).status()
        == "MemoryError: memory limit 256 MB exceeded (exit code 1)"
    )
    assert (
        ExecutionResult(exit_code=None, output_limit_exceeded=True, **base)
        .status()
        .startswith("killed: output limit")
    )
    assert "CPU time limit" in ExecutionResult(exit_code=-signal.SIGXCPU, **base).status()
    assert ExecutionResult(exit_code=0, **base).status() == "exit code 0"
