"""`run_python`: real subprocesses, no mocks, in each sandbox (bubblewrap tests skip where it is unusable)."""

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
from code_exec_support import SLEEP, new_marker, pids_with, require_sandbox, wait_gone, wait_until

from mixseek.agents.member.code_exec_tool import (
    NOFILE_LIMIT,
    CodeExecError,
    ExecutionResult,
    output_kill_bytes,
    run_python,
)
from mixseek.config.member_options import CodeExecOptions

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux namespaces, /proc and rlimits")


def opts(**kwargs: object) -> CodeExecOptions:
    return CodeExecOptions.model_validate({"timeout_seconds": 10.0, **kwargs})


async def run(code: str, **kwargs: object) -> ExecutionResult:
    return await run_python(textwrap.dedent(code), opts(**kwargs))


@pytest.fixture(params=["process", "bubblewrap"])
def sandbox(request: pytest.FixtureRequest) -> str:
    """Each sandbox in turn."""
    return require_sandbox(str(request.param))


def sleeper(marker: str) -> str:
    """Python that starts a `sleep 100` named `marker` (to be found in the host's /proc)."""
    return f"subprocess.Popen([{marker!r}, '100'], executable={SLEEP!r})"


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


async def test_infinite_loop_times_out_promptly(sandbox: str) -> None:
    started = time.monotonic()
    result = await run(
        "print('started', flush=True)\nwhile True:\n    pass\n", timeout_seconds=1.0, sandbox=sandbox
    )
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert result.exit_code is None
    assert elapsed < 30.0  # not the CPU backstop, nor a hang
    assert result.stdout == "started\n"  # output before the hang is kept
    assert result.as_tool_text().startswith("status: timed out after 1.0 s")


async def test_timeout_kills_spawned_grandchild(sandbox: str) -> None:
    marker = new_marker()
    result = await run(
        f"""\
        import subprocess, time
        {sleeper(marker)}
        time.sleep(100)
        """,
        timeout_seconds=2.0,
        sandbox=sandbox,
    )
    assert result.timed_out
    assert await wait_gone(marker), f"the grandchild {marker} survived the timeout"


async def test_background_child_is_killed_when_the_script_exits(sandbox: str) -> None:
    # The `sleep` inherits stdout; the run must still end when the script does, not when the pipe closes.
    marker = new_marker()
    started = time.monotonic()
    result = await run(
        f"""\
        import subprocess
        {sleeper(marker)}
        print('started')
        """,
        timeout_seconds=60.0,
        sandbox=sandbox,
    )
    assert time.monotonic() - started < 30.0
    assert result.exit_code == 0
    assert not result.timed_out
    assert await wait_gone(marker)


async def test_cancellation_kills_every_process_and_cleans_up(sandbox: str) -> None:
    marker = new_marker()
    code = f"""\
        import os, subprocess, time
        {sleeper(marker)}
        time.sleep(100)
        """
    task = asyncio.create_task(run(code, timeout_seconds=120.0, sandbox=sandbox))
    assert await wait_until(lambda: pids_with(marker)), "the script never started its child"
    (child,) = pids_with(marker)
    workdir = os.readlink(f"/proc/{child}/cwd")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(marker), "a child survived cancellation"
    if sandbox == "process":
        assert Path(workdir).name.startswith("mixseek-code-")
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


async def test_memory_bomb_reports_memory_error(sandbox: str) -> None:
    result = await run("data = bytearray(2 * 1024**3)\nprint('allocated')\n", memory_mb=256, sandbox=sandbox)
    assert result.exit_code == 1
    assert result.memory_exceeded
    assert "MemoryError" in result.stderr
    assert result.stdout == ""
    assert result.as_tool_text().startswith("status: MemoryError: memory limit 256 MB exceeded")


async def test_allocation_within_the_limit_succeeds(sandbox: str) -> None:
    result = await run("data = bytearray(100 * 1024**2)\nprint(len(data))\n", memory_mb=512, sandbox=sandbox)
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


async def test_caught_memory_error_is_not_memory_exceeded(sandbox: str) -> None:
    result = await run(
        """\
        try:
            bytearray(2 * 1024**3)
        except MemoryError:
            print('too big, using less')
        """,
        memory_mb=256,
        sandbox=sandbox,
    )
    assert result.exit_code == 0
    assert not result.memory_exceeded
    assert result.stdout == "too big, using less\n"


async def test_resource_limits_are_set_in_the_child(sandbox: str) -> None:
    result = await run(
        """\
        import resource as r
        for name in ('RLIMIT_AS', 'RLIMIT_CORE', 'RLIMIT_CPU', 'RLIMIT_NOFILE', 'RLIMIT_NPROC'):
            print(name, *r.getrlimit(getattr(r, name)))
        """,
        memory_mb=300,
        timeout_seconds=4.5,
        max_processes=40,
        sandbox=sandbox,
    )
    assert result.exit_code == 0, result.stderr
    limits = {name: (int(soft), int(hard)) for name, soft, hard in map(str.split, result.stdout.splitlines())}
    assert limits["RLIMIT_AS"] == (300 * 1024**2, 300 * 1024**2)
    assert limits["RLIMIT_CORE"] == (0, 0)
    assert limits["RLIMIT_CPU"] == (6, 7)
    assert limits["RLIMIT_NOFILE"] == (NOFILE_LIMIT, NOFILE_LIMIT)
    soft, hard = limits["RLIMIT_NPROC"]
    assert soft == hard
    if sandbox == "bubblewrap":
        assert soft == 40  # counted in the sandbox's own user namespace
    else:
        assert 40 <= soft < 40 + 100_000  # 40 more than the user id runs already


async def test_runs_in_a_temporary_directory_that_is_removed(sandbox: str) -> None:
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
        print(os.environ['TEMP'])
        print(sorted(os.listdir('.')))
        """,
        sandbox=sandbox,
    )
    assert result.exit_code == 0, result.stderr
    workdir, home, tmpdir, listing = result.stdout.splitlines()
    assert Path(workdir) != repo_cwd
    assert home == tmpdir == workdir
    assert listing == "['main.py', 'out.txt', 'sub']"
    assert not Path(workdir).exists()
    assert not (repo_cwd / "out.txt").exists()


async def test_parent_environment_is_not_inherited(sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-test-value")
    monkeypatch.setenv("PYTHONPATH", "/nonexistent-injected")
    result = await run(
        """\
        import os, sys
        print(os.environ.get('OPENAI_API_KEY'))
        print(' '.join(sorted(os.environ)))
        print(sys.flags.isolated, '/nonexistent-injected' in sys.path)
        """,
        sandbox=sandbox,
    )
    assert result.exit_code == 0, result.stderr
    key, names, flags = result.stdout.splitlines()
    assert key == "None"
    assert "sk-secret" not in result.stdout
    # bwrap adds PWD; the C library drops TMPDIR for a process whose real and effective uid differ
    allowed = {"HOME", "LANG", "LC_ALL", "PATH", "PYTHONIOENCODING", "TEMP", "TMPDIR", "PWD"}
    assert {"HOME", "PATH", "TEMP"} <= set(names.split()) <= allowed
    assert flags == "1 False"


async def test_no_descriptor_of_the_parent_is_inherited(sandbox: str) -> None:
    result = await run("import os\nprint(sorted(os.listdir('/proc/self/fd')))", sandbox=sandbox)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "['0', '1', '2', '3']\n"  # 3: the directory being listed


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


async def test_concurrent_runs_are_independent(sandbox: str) -> None:
    codes = [
        f"import os, time\nopen('mine.txt', 'w').write('{i}')\ntime.sleep(0.3)\n"
        f"print({i}, open('mine.txt').read(), os.getcwd())\n"
        for i in range(4)
    ]
    results = await asyncio.gather(*(run(code, sandbox=sandbox) for code in codes))
    workdirs = set()
    for i, result in enumerate(results):
        assert result.exit_code == 0, result.stderr
        number, written, workdir = result.stdout.split()
        assert number == written == str(i)
        workdirs.add(workdir)
        assert not Path(workdir).exists()
    assert len(workdirs) == (4 if sandbox == "process" else 1)  # bubblewrap: each its own /sandbox


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


def test_a_python_under_tmp_gets_a_tmpfs_tmp_to_be_bound_into() -> None:
    from mixseek.agents.member.code_exec_sandbox import PythonLayout, bwrap_command

    def argv(directories: tuple[str, ...]) -> list[str]:
        layout = PythonLayout(executable="/x/bin/python", directories=directories)
        return bwrap_command(
            "bwrap", layout, environment={}, tmpfs_bytes=1024, script_fd=3, userns_fds=None, inner=["run"]
        )

    elsewhere = argv(("/opt/py",))
    assert "--symlink" in elsewhere and elsewhere[elsewhere.index("/tmp") - 2 :][:3] == [
        "--symlink",
        "/sandbox",
        "/tmp",
    ]
    under_tmp = argv(("/tmp/clone/.venv",))
    tmpfs = under_tmp.index("/tmp")
    assert under_tmp[tmpfs - 1] == "--tmpfs"
    assert tmpfs < under_tmp.index("/tmp/clone/.venv")  # mounted first, then bound into
    assert ["--symlink", "/sandbox", "/tmp"] not in [under_tmp[i : i + 3] for i in range(len(under_tmp))]
