"""The `code-exec` member's tool: `run_python` runs LLM-written Python as ``main.py`` (``python -I``, the
sandbox bootstrap, bubblewrap or a plain process) with stdin closed, a minimal environment, limits, a timeout
and capped output (README "Code execution"); only an interpreter that cannot start raises `CodeExecError`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from mixseek.agents.member.code_exec_result import ExecutionResult
from mixseek.agents.member.code_exec_runner import (
    CodeExecError,
    Descriptors,
    Launch,
    SandboxUnavailable,
    execute,
    output_kill_bytes,
)
from mixseek.agents.member.code_exec_sandbox import (
    BOOTSTRAP,
    BOOTSTRAP_INSIDE,
    SCRIPT_INSIDE,
    WORKDIR,
    Sandbox,
    SandboxMode,
    bwrap_command,
    find_bwrap,
    python_layout,
    userns_maps,
)
from mixseek.config.member_options import CodeExecOptions

__all__ = [
    "NOFILE_LIMIT",
    "CodeExecError",
    "ExecutionResult",
    "Sandbox",
    "SandboxUnavailable",
    "check_sandbox",
    "output_kill_bytes",
    "prepare_sandbox",
    "resolve_sandbox",
    "run_python",
    "sandbox_environment",
]

logger = logging.getLogger(__name__)

SCRIPT_NAME = "main.py"
"""File name of the user's code inside the work directory (it shows up in tracebacks)."""

NOFILE_LIMIT = 256
"""``RLIMIT_NOFILE`` of the child: open file descriptors per process."""

_TEMP_PREFIX = "mixseek-code-"
_PR_SET_DUMPABLE = 4
_PROBE_OPTIONS = CodeExecOptions(timeout_seconds=120, memory_mb=256, max_output_chars=1000, max_processes=16)
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

T = TypeVar("T")


def sandbox_environment(workdir: str, path: str | None = None) -> dict[str, str]:
    """The complete environment of the child: nothing of the parent's but ``PATH`` (or `path`)."""
    return {
        "PATH": path or os.environ.get("PATH") or os.defpath,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": workdir,
        "TMPDIR": workdir,
        # The C library drops TMPDIR for a process whose real and effective uid differ (a plain
        # process under root); Python's tempfile then reads TEMP.
        "TEMP": workdir,
        # Ignored by `python -I`; `-X utf8` on the command line does the job for the interpreter,
        # this is for Python subprocesses the code starts without -I.
        "PYTHONIOENCODING": "utf-8",
    }


# --- choosing the sandbox -------------------------------------------------------------------------------

_bubblewrap_checks: dict[str, tuple[str | None, str | None]] = {}  # executable -> (bwrap, problem)
_warned: set[str] = set()
_warn_lock = threading.Lock()


async def resolve_sandbox(mode: SandboxMode, executable: str) -> Sandbox:
    """The sandbox `mode` means for `executable` here; bubblewrap is tried once per interpreter."""
    if mode == "process":
        return Sandbox("process", reason='sandbox = "process"')
    if executable not in _bubblewrap_checks:
        _bubblewrap_checks[executable] = await _check_bubblewrap(executable)
    bwrap, problem = _bubblewrap_checks[executable]
    if problem is None:
        return Sandbox("bubblewrap", bwrap=bwrap)
    if mode == "bubblewrap":
        raise SandboxUnavailable(f"bubblewrap cannot be used here: {problem}")
    return Sandbox("process", reason=f"bubblewrap cannot be used: {problem}")


async def _check_bubblewrap(executable: str) -> tuple[str | None, str | None]:
    """(bwrap, None) if a trial script runs in bubblewrap with `executable`, else (bwrap, the reason)."""
    bwrap = find_bwrap()
    if bwrap is None:
        return None, "bwrap not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        result = await _run_bubblewrap("print('ok')", executable, bwrap, _PROBE_OPTIONS)
    except CodeExecError as exc:
        return bwrap, str(exc)
    if result.stdout == "ok\n" and result.exit_code == 0:
        return bwrap, None
    detail = (result.stderr.strip().splitlines() or [result.status()])[-1]
    return bwrap, f"a trial run in {bwrap} failed: {detail}"


def check_sandbox(options: CodeExecOptions) -> Sandbox:
    """The sandbox these options will use, from synchronous code (a trial run at most once)."""
    executable = _resolve_executable(options.python_executable or sys.executable)
    return _run_blocking(lambda: resolve_sandbox(options.sandbox, executable))


def prepare_sandbox(options: CodeExecOptions) -> Sandbox:
    """At start-up: `check_sandbox`, and say once per process when the sandbox is no real one."""
    sandbox = check_sandbox(options)
    if sandbox.kind == "process":
        _warn_once(
            f"warning: code-exec runs Python without a sandbox ({sandbox.reason}): model-written code can "
            "read and write your files and use the network; see README.md, 'Code execution'"
        )
    return sandbox


def _run_blocking(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from synchronous code, also when this thread runs an event loop."""
    outcome: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(asyncio.run(make()))
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=target, name="mixseek-sandbox-check")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return outcome[0]


def _warn_once(message: str) -> None:
    with _warn_lock:
        if message in _warned:
            return
        _warned.add(message)
    if logger.hasHandlers():  # the log file of `exec`; else logging's last resort would print it twice
        logger.warning(message)
    print(message, file=sys.stderr, flush=True)


# --- running ----------------------------------------------------------------------------------------


async def run_python(
    code: str, options: CodeExecOptions, *, sandbox: Sandbox | None = None
) -> ExecutionResult:
    """Run ``code`` in a limited Python process; on cancellation every process of the run is killed first."""
    executable = _resolve_executable(options.python_executable or sys.executable)
    if sandbox is None:
        sandbox = await resolve_sandbox(options.sandbox, executable)
    if sandbox.kind == "bubblewrap":
        assert sandbox.bwrap is not None
        return await _run_bubblewrap(code, executable, sandbox.bwrap, options)
    return await _run_process(code, executable, options)


def _resolve_executable(name: str) -> str:
    """``name`` made absolute: the child runs elsewhere, and the bootstrap's `execv` does no PATH lookup."""
    if not name:
        raise CodeExecError("no Python interpreter: sys.executable is empty and python_executable is unset")
    found = name if os.sep in name else shutil.which(name)
    if found is None:
        raise CodeExecError(f"cannot start the Python interpreter {name!r}: not found on PATH")
    return os.path.abspath(found)


def _script_bytes(code: str) -> bytes:
    # surrogatepass: a stray surrogate becomes a SyntaxError of the script, not an error here.
    return code.encode("utf-8", "surrogatepass")


def _limit_arguments(options: CodeExecOptions) -> list[str]:
    """AS_BYTES CPU_SECONDS NOFILE of the bootstrap's command line."""
    cpu_seconds = math.ceil(options.timeout_seconds) + 1
    return [str(options.memory_mb * 1024 * 1024), str(cpu_seconds), str(NOFILE_LIMIT)]


def _script_command(executable: str, script: str) -> list[str]:
    return [
        executable,
        "-I",  # isolated: no user site-packages, PYTHON* variables ignored, script dir not on sys.path
        "-B",  # no __pycache__ in the work directory
        "-u",  # unbuffered: output written before a hang or kill still arrives
        "-X",
        "utf8",
        script,
    ]


async def _run_process(code: str, executable: str, options: CodeExecOptions) -> ExecutionResult:
    """The plain-process sandbox: a temporary directory on disk, the bootstrap as supervisor."""
    _make_undumpable()
    try:
        workdir = tempfile.mkdtemp(prefix=_TEMP_PREFIX)
    except OSError as exc:
        raise CodeExecError(f"cannot create the temporary directory: {exc}") from exc
    try:
        script = Path(workdir, SCRIPT_NAME)
        try:
            script.write_bytes(_script_bytes(code))
        except OSError as exc:
            raise CodeExecError(f"cannot write the script: {exc}") from exc
        with Descriptors() as fds:
            status_read, status_write = fds.pipe()
            user = "real-nobody" if os.geteuid() == 0 else "same"
            argv = [
                executable,
                "-I",
                "-S",  # the bootstrap needs no site-packages
                str(BOOTSTRAP),
                str(status_write),
                str(os.getpid()),
                *_limit_arguments(options),
                f"+{options.max_processes}",
                user,
                *_script_command(executable, str(script)),
            ]
            launch = Launch(
                argv=argv,
                cwd=workdir,
                env=sandbox_environment(workdir),
                fds=fds,
                child_fds=(status_write,),
                status_read=status_read,
                graceful_stop=True,
                what=f"the Python interpreter {executable!r}",
            )
            return await execute(launch, options)
    finally:
        _remove_tree(workdir)


async def _run_bubblewrap(
    code: str, executable: str, bwrap: str, options: CodeExecOptions
) -> ExecutionResult:
    """The bubblewrap sandbox: the script is copied into a tmpfs; nothing touches the host's disk."""
    try:
        layout = await asyncio.to_thread(python_layout, executable)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise CodeExecError(f"cannot start the Python interpreter {executable!r}: {exc}") from exc
    as_root = os.geteuid() == 0
    with Descriptors() as fds:
        script_fd = fds.add(os.memfd_create("mixseek-script"))
        os.write(script_fd, _script_bytes(code))
        os.lseek(script_fd, 0, os.SEEK_SET)
        status_read, status_write = fds.pipe()
        child_fds = [script_fd, status_write]
        userns_fds: tuple[int, int] | None = None
        after_spawn: Callable[[], Awaitable[None]] | None = None
        if as_root:
            block_read, block_write = fds.pipe()
            info_read, info_write = fds.pipe()
            child_fds += [block_read, info_write]
            userns_fds = (block_read, info_write)
            after_spawn = _id_mapper(info_read, block_write, fds)
        path = f"{os.path.dirname(layout.executable)}:{_SYSTEM_PATH}"
        environment = sandbox_environment(WORKDIR, path)
        inner = [
            layout.executable,
            "-I",
            "-S",
            BOOTSTRAP_INSIDE,
            str(status_write),
            "0",  # bwrap's --die-with-parent watches the parent
            *_limit_arguments(options),
            str(options.max_processes),
            "nobody" if as_root else "same",
            *_script_command(layout.executable, SCRIPT_INSIDE),
        ]
        argv = bwrap_command(
            bwrap,
            layout,
            environment=environment,
            tmpfs_bytes=options.memory_mb * 1024 * 1024,
            script_fd=script_fd,
            userns_fds=userns_fds,
            inner=inner,
        )
        launch = Launch(
            argv=argv,
            cwd="/",
            env=environment,  # also bwrap's own: its processes' /proc/<pid>/environ hold no secret
            fds=fds,
            child_fds=tuple(child_fds),
            status_read=status_read,
            graceful_stop=False,
            what=f"{executable!r} in bubblewrap",
            after_spawn=after_spawn,
        )
        return await execute(launch, options)


def _id_mapper(info_read: int, block_write: int, fds: Descriptors) -> Callable[[], Awaitable[None]]:
    """Once bwrap has created the user namespace: write its id maps (we are root), then let it go on."""

    async def map_ids() -> None:
        child = await _read_child_pid(info_read)
        if child is not None:
            maps = userns_maps()
            for name in ("uid_map", "gid_map"):
                with contextlib.suppress(OSError), open(f"/proc/{child}/{name}", "w") as f:
                    f.write(maps)
        with contextlib.suppress(OSError):
            os.write(block_write, b"1")
        fds.close(block_write, info_read)

    return map_ids


async def _read_child_pid(fd: int) -> int | None:
    """The ``child-pid`` of bwrap's ``--info-fd`` JSON; None if bwrap ended without writing it."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    found: asyncio.Future[int | None] = loop.create_future()
    data = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if found.done():
            return
        if not chunk:
            found.set_result(None)
            return
        data.extend(chunk)
        with contextlib.suppress(ValueError, KeyError, TypeError):
            found.set_result(int(json.loads(bytes(data))["child-pid"]))

    loop.add_reader(fd, readable)
    try:
        return await found
    finally:
        loop.remove_reader(fd)


def _make_undumpable() -> None:
    """Keep other processes of this user (the script) out of this process's /proc files and memory."""
    if sys.platform != "linux":
        return
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _remove_tree(path: str) -> None:
    """Remove the work directory, also if the script made parts of it unreadable."""
    try:
        shutil.rmtree(path)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    for root, dirs, _files in os.walk(path):
        for name in dirs:
            full = os.path.join(root, name)
            if not os.path.islink(full):
                with contextlib.suppress(OSError):
                    os.chmod(full, 0o700)
    shutil.rmtree(path, ignore_errors=True)
