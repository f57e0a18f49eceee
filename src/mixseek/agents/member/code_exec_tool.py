"""The `code-exec` member's tool: run LLM-written Python in a separate, limited subprocess.

`run_python(code, options)` writes ``code`` to ``main.py`` in a fresh temporary directory and runs it
with ``python -I`` in a new session (its own process group), a minimal environment, stdin closed,
resource limits, a wall-clock timeout and capped output. The outcome is an `ExecutionResult`; whatever
the user's code does (raise, exit, hang, flood the output, exhaust memory) is reported there, and only
the impossibility of starting the interpreter raises `CodeExecError`.

How each limit is enforced:

* wall clock -- the parent waits ``timeout_seconds``, then SIGKILLs the whole process group
  (``start_new_session=True`` + `os.killpg`), so processes the code spawned die too;
* memory -- ``RLIMIT_AS`` of ``memory_mb`` (address space, per process, inherited by children);
* CPU -- ``RLIMIT_CPU`` a second above the timeout, a backstop should the parent be unable to kill;
* core dumps -- ``RLIMIT_CORE`` 0; open files -- ``RLIMIT_NOFILE`` `NOFILE_LIMIT`;
* output -- stdout and stderr are read as they arrive; at most ``max_output_chars`` characters of each
  are kept (plus a short tail), the rest is counted and dropped, and once a stream passes
  `output_kill_bytes` the process group is killed, so an endless ``print`` loop ends promptly
  and can neither fill the parent's memory nor block on a full pipe;
* leftovers -- when the script exits, the process group is killed as well (no background processes
  survive a run) and the temporary directory is removed, also after timeouts and cancellation.

The limits are set by `_sandbox_child` (a bootstrap run as a script by the same interpreter), which
applies them to itself and then execs the user's script, rather than by a ``preexec_fn``.

Not enforced: processes that leave the process group (``os.setsid()``, daemonizing) escape the
group kill; the number of processes (``RLIMIT_NPROC`` counts every process of the user, see
`_sandbox_child`); disk usage; network access. For untrusted code, run mixseek itself inside a
container or VM -- this tool bounds runaway LLM code, it is not a security boundary.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mixseek.agents.member.options import CodeExecOptions

__all__ = [
    "NOFILE_LIMIT",
    "CodeExecError",
    "ExecutionResult",
    "output_kill_bytes",
    "run_python",
    "sandbox_environment",
]

SCRIPT_NAME = "main.py"
"""File name of the user's code inside the temporary directory (it shows up in tracebacks)."""

NOFILE_LIMIT = 256
"""``RLIMIT_NOFILE`` of the child: open file descriptors per process."""

_BOOTSTRAP = Path(__file__).with_name("_sandbox_child.py")
_TEMP_PREFIX = "mixseek-code-"
_KILL_FACTOR = 10  # bytes of one stream, per kept character, before the process is killed
_MIN_KILL_BYTES = 1 << 20
_MAX_TAIL_CHARS = 2_000
_DRAIN_GRACE_SECONDS = 2.0  # after the kill: how long to wait for the pipes to reach EOF
_STATUS_READY = b"R"
_STATUS_ERROR = b"E"


class CodeExecError(Exception):
    """The Python interpreter could not be started (failures of the user's code are results)."""


def output_kill_bytes(options: CodeExecOptions) -> int:
    """Bytes one output stream may carry before the process group is killed."""
    return max(_KILL_FACTOR * options.max_output_chars, _MIN_KILL_BYTES)


def sandbox_environment(workdir: str) -> dict[str, str]:
    """The complete environment of the child: nothing of the parent's but ``PATH``."""
    return {
        "PATH": os.environ.get("PATH") or os.defpath,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": workdir,
        "TMPDIR": workdir,
        # Ignored by `python -I`; `-X utf8` on the command line does the job for the interpreter,
        # this is for Python subprocesses the code starts without -I.
        "PYTHONIOENCODING": "utf-8",
    }


class ExecutionResult(BaseModel):
    """What one run of `run_python` produced."""

    model_config = ConfigDict(frozen=True)

    exit_code: int | None
    """The script's exit status; negative ``-N`` if a signal N ended it; None if this tool killed it
    (timeout or output limit)."""
    stdout: str
    """Standard output, at most ``max_output_chars`` characters (the beginning, if truncated)."""
    stderr: str
    timed_out: bool = False
    memory_exceeded: bool = False
    """Best effort: the script failed with MemoryError / an allocation failure, or was SIGKILLed by
    someone else than this tool (most likely the kernel's OOM killer)."""
    output_limit_exceeded: bool = False
    """The process group was killed because a stream passed `output_kill_bytes`."""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    stdout_tail: str = ""
    """When stdout is truncated: its last characters (at most 2,000), which may hold the result."""
    stderr_tail: str = ""
    """When stderr is truncated: its last characters, usually the exception."""
    stdout_bytes: int = 0
    """Bytes the script wrote to stdout in total, kept or not."""
    stderr_bytes: int = 0
    duration_ms: int = 0
    timeout_seconds: float
    memory_mb: int

    @property
    def ok(self) -> bool:
        """The script ran to completion and exited with status 0."""
        return self.exit_code == 0 and not (self.timed_out or self.output_limit_exceeded)

    def status(self) -> str:
        """One line saying how the run ended."""
        if self.timed_out:
            return f"timed out after {self.timeout_seconds} s (the process and its children were killed)"
        if self.output_limit_exceeded:
            return (
                "killed: output limit exceeded "
                f"(stdout {self.stdout_bytes} bytes, stderr {self.stderr_bytes} bytes written)"
            )
        if self.memory_exceeded:
            return f"MemoryError: memory limit {self.memory_mb} MB exceeded ({self._exit_description()})"
        return self._exit_description()

    def _exit_description(self) -> str:
        code = self.exit_code
        if code is None:
            return "killed"
        if code >= 0:
            return f"exit code {code}"
        return f"killed by signal {_signal_name(-code)}"

    def as_tool_text(self) -> str:
        """The result as the LLM sees it: a status line, then the stdout and stderr sections."""
        parts = [f"status: {self.status()}"]
        parts += _section("stdout", self.stdout, self.stdout_tail, self.stdout_truncated, self.stdout_bytes)
        parts += _section("stderr", self.stderr, self.stderr_tail, self.stderr_truncated, self.stderr_bytes)
        return "\n".join(parts)


def _section(name: str, head: str, tail: str, truncated: bool, total_bytes: int) -> list[str]:
    if not truncated:
        return [f"--- {name} ---", head.rstrip("\n") if head else "(empty)"]
    note = f"[... {name} truncated: {total_bytes} bytes written; showing the first {len(head)} characters"
    note += f" and the last {len(tail)} ...]" if tail else " ...]"
    lines = [f"--- {name} (truncated) ---", head.rstrip("\n"), note]
    if tail:
        lines.append(tail.rstrip("\n"))
    return lines


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return str(number)
    if number == getattr(signal, "SIGXCPU", None):
        return f"{name} (CPU time limit exceeded)"
    return name


async def run_python(code: str, options: CodeExecOptions) -> ExecutionResult:
    """Run ``code`` as a script in a separate, limited Python process and report the outcome.

    Raises `CodeExecError` only if the interpreter cannot be started. If the awaiting task is
    cancelled, the process group is killed and the temporary directory removed before the
    `asyncio.CancelledError` propagates.
    """
    executable = _resolve_executable(options.python_executable or sys.executable)
    try:
        workdir = tempfile.mkdtemp(prefix=_TEMP_PREFIX)
    except OSError as exc:
        raise CodeExecError(f"cannot create the temporary directory: {exc}") from exc
    try:
        script = Path(workdir, SCRIPT_NAME)
        try:
            # surrogatepass: a stray surrogate becomes a SyntaxError of the script, not an error here.
            script.write_bytes(code.encode("utf-8", "surrogatepass"))
        except OSError as exc:
            raise CodeExecError(f"cannot write the script: {exc}") from exc
        return await _run_in(workdir, script, executable, options)
    finally:
        _remove_tree(workdir)


def _resolve_executable(name: str) -> str:
    """``name`` made absolute: the child runs elsewhere, and the bootstrap's `execv` does no PATH lookup."""
    if not name:
        raise CodeExecError("no Python interpreter: sys.executable is empty and python_executable is unset")
    found = name if os.sep in name else shutil.which(name)
    if found is None:
        raise CodeExecError(f"cannot start the Python interpreter {name!r}: not found on PATH")
    return os.path.abspath(found)


async def _run_in(workdir: str, script: Path, executable: str, options: CodeExecOptions) -> ExecutionResult:
    loop = asyncio.get_running_loop()
    tail_chars = min(_MAX_TAIL_CHARS, options.max_output_chars // 4)
    stdout = _StreamCapture(options.max_output_chars, tail_chars)
    stderr = _StreamCapture(options.max_output_chars, tail_chars)
    protocol = _SandboxProtocol(stdout, stderr, output_kill_bytes(options))
    cpu_seconds = math.ceil(options.timeout_seconds) + 1
    try:
        status_read, status_write = os.pipe()
    except OSError as exc:
        raise CodeExecError(f"cannot create a pipe: {exc}") from exc
    argv = [
        executable,
        "-I",  # isolated: no user site-packages, PYTHON* variables ignored, script dir not on sys.path
        "-S",  # the bootstrap needs no site-packages
        str(_BOOTSTRAP),
        str(status_write),
        str(options.memory_mb * 1024 * 1024),
        str(cpu_seconds),
        str(NOFILE_LIMIT),
        executable,
        "-I",
        "-B",  # no __pycache__ in the work directory
        "-u",  # unbuffered: output written before a hang or kill still arrives
        "-X",
        "utf8",
        str(script),
    ]
    started = time.monotonic()
    try:
        # loop.subprocess_exec is what asyncio.create_subprocess_exec is built on. Its protocol reports
        # the script's exit as it happens; Process.wait() would wait until the pipes close as well,
        # which a background child holding stdout can postpone indefinitely.
        transport, _ = await loop.subprocess_exec(
            lambda: protocol,
            *argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=sandbox_environment(workdir),
            start_new_session=True,  # own session and process group (pgid == pid), killed as a whole
            pass_fds=(status_write,),
        )
    except OSError as exc:
        os.close(status_read)
        raise CodeExecError(f"cannot start the Python interpreter {executable!r}: {exc}") from exc
    except BaseException:  # cancelled while starting: asyncio has killed the process already
        os.close(status_read)
        raise
    finally:
        os.close(status_write)

    pid = transport.get_pid()
    try:
        try:
            await asyncio.wait_for(protocol.exited.wait(), timeout=options.timeout_seconds)
        except TimeoutError:
            protocol.timed_out = True
        duration_ms = round((time.monotonic() - started) * 1000)
        # Also after a normal exit: no background process outlives the run, and the pipes they hold
        # get closed.
        _kill_group(pid)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(protocol.closed.wait(), timeout=_DRAIN_GRACE_SECONDS)
    finally:
        _kill_group(pid)  # again, for cancellation and errors above
        transport.close()
        status = _read_status(status_read)

    returncode = transport.get_returncode()
    if not protocol.killed_by_us:
        _check_started(status, executable, returncode, stderr)
    return _build_result(protocol, stdout, stderr, returncode, duration_ms, options)


def _build_result(
    protocol: _SandboxProtocol,
    stdout: _StreamCapture,
    stderr: _StreamCapture,
    returncode: int | None,
    duration_ms: int,
    options: CodeExecOptions,
) -> ExecutionResult:
    killed_by_us = protocol.killed_by_us
    out_text, out_tail, out_truncated = stdout.finish()
    err_text, err_tail, err_truncated = stderr.finish()
    exit_code = None if killed_by_us else returncode
    return ExecutionResult(
        exit_code=exit_code,
        stdout=out_text,
        stderr=err_text,
        timed_out=protocol.timed_out,
        memory_exceeded=not killed_by_us and _memory_exceeded(exit_code, err_tail or err_text),
        output_limit_exceeded=protocol.output_limit_exceeded,
        stdout_truncated=out_truncated,
        stderr_truncated=err_truncated,
        stdout_tail=out_tail,
        stderr_tail=err_tail,
        stdout_bytes=stdout.total_bytes,
        stderr_bytes=stderr.total_bytes,
        duration_ms=duration_ms,
        timeout_seconds=options.timeout_seconds,
        memory_mb=options.memory_mb,
    )


def _check_started(status: bytes, executable: str, returncode: int | None, stderr: _StreamCapture) -> None:
    """Raise `CodeExecError` unless the bootstrap reported that it set the limits and exec'd."""
    if _STATUS_ERROR in status:
        message = status.split(_STATUS_ERROR, 1)[1].decode("utf-8", "replace")
        raise CodeExecError(f"cannot start the sandboxed Python {executable!r}: {message}")
    if status.startswith(_STATUS_READY):
        return
    detail = stderr.finish()[0].strip()[:500]
    raise CodeExecError(
        f"{executable!r} did not run the sandbox bootstrap (is it a Python 3 interpreter?); "
        f"exit status {returncode}" + (f": {detail}" if detail else "")
    )


_MEMORY_ERROR_LINE = re.compile(r"[\w.]*MemoryError\b")  # also numpy's _ArrayMemoryError
_MEMORY_MESSAGES = re.compile(
    r"MemoryError|Cannot allocate memory|out of memory|std::bad_alloc|Fatal Python error:.*(?:memory|alloc)",
    re.IGNORECASE,
)


def _memory_exceeded(exit_code: int | None, stderr_end: str) -> bool:
    """Best effort: did the script die from the memory limit?

    True if the uncaught exception is a MemoryError (or the last line reports a failed allocation),
    if a signal ended the script right after such a message (native code aborting), or if it was
    SIGKILLed -- runs this tool killed itself are not passed here, so that is most likely the
    kernel's OOM killer.
    """
    if exit_code is None or exit_code == 0:
        return False
    if exit_code == -signal.SIGKILL:
        return True
    lines = [line for line in stderr_end.splitlines() if line.strip()]
    if not lines:
        return False
    if _MEMORY_ERROR_LINE.match(lines[-1]):
        return True
    window = lines[-1:] if exit_code > 0 else lines[-10:]
    return any(_MEMORY_MESSAGES.search(line) for line in window)


class _StreamCapture:
    """Keeps the beginning and the end of one output stream, within fixed memory."""

    def __init__(self, max_chars: int, tail_chars: int) -> None:
        self.max_chars = max_chars
        self.tail_chars = tail_chars
        self._head_limit = 4 * max_chars + 4  # UTF-8: at most 4 bytes per character
        self._tail_limit = 4 * tail_chars + 4
        self._head = bytearray()
        self._tail = bytearray()
        self._tail_dropped = False
        self.total_bytes = 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            excess = len(self._tail) - self._tail_limit
            if excess > 0:
                del self._tail[:excess]
                self._tail_dropped = True

    def finish(self) -> tuple[str, str, bool]:
        """(first `max_chars` characters, last characters if truncated, truncated?)."""
        if not self._tail_dropped:
            text = (self._head + self._tail).decode("utf-8", "replace")
            if len(text) <= self.max_chars:
                return text, "", False
            rest = text[self.max_chars :]
            return text[: self.max_chars], rest[len(rest) - self.tail_chars :], True
        head = codecs.getincrementaldecoder("utf-8")("replace").decode(bytes(self._head), final=False)
        tail_bytes = bytes(self._tail)
        skip = 0
        while skip < min(3, len(tail_bytes)) and tail_bytes[skip] & 0xC0 == 0x80:
            skip += 1  # starts inside a character
        tail = tail_bytes[skip:].decode("utf-8", "replace")
        return head[: self.max_chars], tail[len(tail) - self.tail_chars :], True


class _SandboxProtocol(asyncio.SubprocessProtocol):
    def __init__(self, stdout: _StreamCapture, stderr: _StreamCapture, kill_bytes: int) -> None:
        self._captures = {1: stdout, 2: stderr}
        self._kill_bytes = kill_bytes
        self._transport: asyncio.SubprocessTransport | None = None
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self.timed_out = False
        self.output_limit_exceeded = False

    @property
    def killed_by_us(self) -> bool:
        """This tool killed the process group (timeout or output limit)."""
        return self.timed_out or self.output_limit_exceeded

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self._transport = transport

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        capture = self._captures.get(fd)
        if capture is None or isinstance(data, str):
            return
        capture.feed(data)
        if capture.total_bytes > self._kill_bytes and not self.output_limit_exceeded:
            if not (self.exited.is_set() or self.timed_out):
                self.output_limit_exceeded = True
            if self._transport is not None:
                _kill_group(self._transport.get_pid())

    def process_exited(self) -> None:
        self.exited.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.exited.set()
        self.closed.set()


def _kill_group(pid: int | None) -> None:
    """SIGKILL the process group led by ``pid`` (the session `start_new_session` created)."""
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _read_status(fd: int) -> bytes:
    """What the bootstrap wrote on the status pipe (its write ends are closed by now); closes ``fd``."""
    chunks: list[bytes] = []
    try:
        os.set_blocking(fd, False)
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    except BlockingIOError:  # a write end still open: cannot happen after exec or exit
        pass
    finally:
        os.close(fd)
    return b"".join(chunks)


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
