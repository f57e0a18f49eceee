"""One sandboxed process from start to report, the same for both sandboxes: spawn it, capture bounded output,
stop it at the timeout or output limit, kill what is left, read the bootstrap's report."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from mixseek.agents.member.code_exec_result import ExecutionResult, StreamCapture, memory_exceeded
from mixseek.config.member_options import CodeExecOptions
from mixseek.errors import RuntimeFailure

_KILL_FACTOR = 10  # bytes of one stream, per kept character, before the process is killed
_MIN_KILL_BYTES = 1 << 20
_MAX_TAIL_CHARS = 2_000
_DRAIN_GRACE_SECONDS = 2.0  # after the kill: how long to wait for the pipes to reach EOF
_STOP_GRACE_SECONDS = 10.0  # after SIGTERM: how long the bootstrap may take to kill what the script left


class CodeExecError(RuntimeFailure):
    """The Python interpreter could not be started (failures of the user's code are results)."""


class SandboxUnavailable(CodeExecError):
    """``sandbox = "bubblewrap"``, and bubblewrap cannot run the interpreter on this host."""


def output_kill_bytes(options: CodeExecOptions) -> int:
    """Bytes one output stream may carry before the run is stopped."""
    return max(_KILL_FACTOR * options.max_output_chars, _MIN_KILL_BYTES)


class Descriptors:
    """The file descriptors of one run, each closed exactly once (the last at the end of the run)."""

    def __init__(self) -> None:
        self._open: set[int] = set()

    def __enter__(self) -> Descriptors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(*self._open)

    def add(self, fd: int) -> int:
        self._open.add(fd)
        return fd

    def pipe(self) -> tuple[int, int]:
        try:
            read_end, write_end = os.pipe()
        except OSError as exc:
            raise CodeExecError(f"cannot create a pipe: {exc}") from exc
        return self.add(read_end), self.add(write_end)

    def close(self, *fds: int) -> None:
        for fd in list(fds):
            if fd in self._open:
                self._open.discard(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)


@dataclass
class Launch:
    """One sandboxed process to start: its command, and how to stop it."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    fds: Descriptors
    child_fds: tuple[int, ...]
    """Passed to the child, closed here once it has them."""
    status_read: int
    graceful_stop: bool
    """SIGTERM lets the bootstrap kill what the script left (plain process); else kill the group."""
    what: str
    after_spawn: Callable[[], Awaitable[None]] | None = None


@dataclass
class _Status:
    """What the bootstrap reported on the status pipe."""

    ready: bool = False
    error: str | None = None
    wait_status: int | None = None
    lines: list[str] = field(default_factory=list)


def _parse_status(raw: bytes) -> _Status:
    status = _Status()
    for line in raw.decode("utf-8", "replace").splitlines():
        if line == "R":
            status.ready = True
        elif line.startswith("E") and status.error is None:
            status.error = line[1:]
        elif line.startswith("X"):
            with contextlib.suppress(ValueError):
                status.wait_status = int(line[1:])
    return status


async def execute(launch: Launch, options: CodeExecOptions) -> ExecutionResult:
    loop = asyncio.get_running_loop()
    tail_chars = min(_MAX_TAIL_CHARS, options.max_output_chars // 4)
    stdout = StreamCapture(options.max_output_chars, tail_chars)
    stderr = StreamCapture(options.max_output_chars, tail_chars)
    protocol = _SandboxProtocol(stdout, stderr, output_kill_bytes(options))
    started = time.monotonic()
    try:
        # loop.subprocess_exec is what asyncio.create_subprocess_exec is built on. Its protocol reports
        # the exit as it happens; Process.wait() would wait until the pipes close as well, which a
        # background child holding stdout can postpone indefinitely.
        transport, _ = await loop.subprocess_exec(
            lambda: protocol,
            *launch.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=launch.cwd,
            env=launch.env,
            start_new_session=True,  # own session and process group (pgid == pid), killed as a whole
            pass_fds=launch.child_fds,
        )
    except OSError as exc:
        raise CodeExecError(f"cannot start {launch.what}: {exc}") from exc
    finally:  # also when cancelled while starting: asyncio has killed the process already
        launch.fds.close(*launch.child_fds)

    pid = transport.get_pid()
    stopper = _Stopper(pid, launch.graceful_stop, protocol)
    protocol.on_output_limit = stopper.stop
    if protocol.output_limit_exceeded:  # passed while the pipes were being connected
        stopper.stop()
    try:
        try:
            if launch.after_spawn is not None:
                await launch.after_spawn()
            try:
                await asyncio.wait_for(protocol.exited.wait(), timeout=options.timeout_seconds)
            except TimeoutError:
                protocol.timed_out = True
            duration_ms = round((time.monotonic() - started) * 1000)
        finally:
            await stopper.stop_and_wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(protocol.closed.wait(), timeout=_DRAIN_GRACE_SECONDS)
    finally:
        kill_group(pid)  # again, for cancellation and errors above
        transport.close()
        status = _parse_status(_read_status(launch.status_read))
        launch.fds.close(launch.status_read)

    returncode = transport.get_returncode()
    if status.wait_status is not None:
        returncode = os.waitstatus_to_exitcode(status.wait_status)
    if not protocol.killed_by_us:
        _check_started(status, launch.what, returncode, stderr)
    return _build_result(protocol, stdout, stderr, returncode, duration_ms, options)


class _Stopper:
    """Ends a run: SIGTERM to the bootstrap and a grace period, or straight SIGKILL to the group."""

    def __init__(self, pid: int | None, graceful: bool, protocol: _SandboxProtocol) -> None:
        self._pid = pid
        self._graceful = graceful
        self._protocol = protocol

    def stop(self) -> None:
        """Ask for the end now (from a protocol callback: no waiting here)."""
        if self._pid is None:
            return
        if self._graceful:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self._pid, signal.SIGTERM)
        else:
            kill_group(self._pid)

    async def stop_and_wait(self) -> None:
        """Stop the run unless it ended; then kill its process group (no background process survives)."""
        try:
            if not self._protocol.exited.is_set():
                self.stop()
                if self._graceful:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._protocol.exited.wait(), timeout=_STOP_GRACE_SECONDS)
        finally:
            kill_group(self._pid)


def _build_result(
    protocol: _SandboxProtocol,
    stdout: StreamCapture,
    stderr: StreamCapture,
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
        memory_exceeded=not killed_by_us and memory_exceeded(exit_code, err_tail or err_text),
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


def _check_started(status: _Status, what: str, returncode: int | None, stderr: StreamCapture) -> None:
    """Raise `CodeExecError` unless the bootstrap reported that it set the limits and exec'd."""
    if status.error is not None:
        raise CodeExecError(f"cannot start {what}: {status.error}")
    if status.ready:
        return
    detail = stderr.finish()[0].strip()[:500]
    if detail.startswith("bwrap:"):  # bubblewrap could not build the sandbox
        raise CodeExecError(f"cannot start {what}: {detail.splitlines()[0]}")
    raise CodeExecError(
        f"{what} did not run the sandbox bootstrap (is it a Python 3 interpreter?); "
        f"exit status {returncode}" + (f": {detail}" if detail else "")
    )


class _SandboxProtocol(asyncio.SubprocessProtocol):
    def __init__(self, stdout: StreamCapture, stderr: StreamCapture, kill_bytes: int) -> None:
        self._captures = {1: stdout, 2: stderr}
        self._kill_bytes = kill_bytes
        self.on_output_limit: Callable[[], None] | None = None
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self.timed_out = False
        self.output_limit_exceeded = False

    @property
    def killed_by_us(self) -> bool:
        """This tool ended the run (timeout or output limit)."""
        return self.timed_out or self.output_limit_exceeded

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        capture = self._captures.get(fd)
        if capture is None or isinstance(data, str):
            return
        capture.feed(data)
        if capture.total_bytes > self._kill_bytes and not self.output_limit_exceeded:
            if not (self.exited.is_set() or self.timed_out):
                self.output_limit_exceeded = True
            if self.on_output_limit is not None:
                self.on_output_limit()

    def process_exited(self) -> None:
        self.exited.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.exited.set()
        self.closed.set()


def kill_group(pid: int | None) -> None:
    """SIGKILL the process group led by ``pid`` (the session `start_new_session` created)."""
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _read_status(fd: int) -> bytes:
    """What the bootstrap wrote on the status pipe (its write ends are closed by now)."""
    chunks: list[bytes] = []
    with contextlib.suppress(BlockingIOError):  # a write end still open: not once every process ended
        os.set_blocking(fd, False)
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    return b"".join(chunks)
