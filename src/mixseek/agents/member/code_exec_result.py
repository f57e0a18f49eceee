"""What one `run_python` call produced, and how its output is kept within fixed memory."""

from __future__ import annotations

import codecs
import re
import signal

from pydantic import BaseModel, ConfigDict

__all__ = ["ExecutionResult", "StreamCapture", "memory_exceeded"]


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


_MEMORY_ERROR_LINE = re.compile(r"[\w.]*MemoryError\b")  # also numpy's _ArrayMemoryError
_MEMORY_MESSAGES = re.compile(
    r"MemoryError|Cannot allocate memory|out of memory|std::bad_alloc|Fatal Python error:.*(?:memory|alloc)",
    re.IGNORECASE,
)


def memory_exceeded(exit_code: int | None, stderr_end: str) -> bool:
    """Best effort: did the memory limit kill the script (MemoryError, failed allocation, OOM SIGKILL)?"""
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


class StreamCapture:
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
