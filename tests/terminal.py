"""Running a program on a pseudo-terminal of a given size, and reading what a user would see on it.

`run_on_terminal` gives the program a terminal for its standard input, output and error (as a
user's shell does), so it takes itself to be interactive: `mixseek exec` draws its live table.
`Screen` replays the bytes it wrote the way a terminal does (the cursor moves and line erasures
Rich uses to redraw a live display), so a test reads the lines left on the screen and in its
scrollback, not the stream of redraws."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time
from dataclasses import dataclass

from rich.cells import cell_len

_CSI = re.compile(r"\x1b\[([?0-9;]*)([@-~])")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


@dataclass
class Run:
    returncode: int
    output: str
    """Everything written to the terminal, escape sequences included."""


def run_on_terminal(
    argv: list[str], *, env: dict[str, str], columns: int = 80, rows: int = 60, timeout: float = 600
) -> Run:
    """Run `argv` with a terminal of `columns` x `rows` as its stdin, stdout and stderr."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    proc = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    data = os.read(leader, 65536)
                except OSError as exc:  # EIO: every holder of the terminal has closed it
                    if exc.errno != errno.EIO:
                        raise
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None and not _pending(leader):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{argv} still runs after {timeout} s")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(leader)
    return Run(proc.returncode, b"".join(chunks).decode("utf-8", errors="replace"))


def _pending(fd: int) -> bool:
    ready, _, _ = select.select([fd], [], [], 0)
    return bool(ready)


class Screen:
    """A terminal `columns` wide with unlimited scrollback: the lines a stream of output leaves."""

    def __init__(self, columns: int = 80) -> None:
        self.columns = columns
        self.lines: list[list[str]] = [[]]
        self.row = 0
        self.col = 0

    def feed(self, text: str) -> Screen:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")  # a terminal's output processing
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                match = _CSI.match(text, i) or _OSC.match(text, i)
                if match is None:
                    i += 2  # a two-character escape (charset selection and the like)
                    continue
                if match.re is _CSI:
                    self._control(match.group(1), match.group(2))
                i = match.end()
                continue
            if ch == "\r":
                self.col = 0
            elif ch == "\n":
                self._down(1)
            elif ch == "\b":
                self.col = max(0, self.col - 1)
            elif ch >= " ":
                self._put(ch)
            i += 1
        return self

    def text(self) -> list[str]:
        """Every line, without trailing blanks; the empty lines at the end left out."""
        lines = ["".join(cells).rstrip() for cells in self.lines]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def _line(self) -> list[str]:
        while len(self.lines) <= self.row:
            self.lines.append([])
        return self.lines[self.row]

    def _down(self, n: int) -> None:
        self.row += n
        self._line()

    def _put(self, ch: str) -> None:
        width = cell_len(ch)
        if width == 0:
            return
        if self.col + width > self.columns:  # the terminal wraps onto the next line
            self._down(1)
            self.col = 0
        line = self._line()
        while len(line) < self.col + width:
            line.append(" ")
        line[self.col] = ch
        for extra in range(1, width):
            line[self.col + extra] = ""  # the right half of a wide character
        self.col += width

    def _control(self, params: str, final: str) -> None:
        numbers = [int(p) for p in params.lstrip("?").split(";") if p.isdigit()]
        n = numbers[0] if numbers else None
        line = self._line()
        if final == "A":
            self.row = max(0, self.row - (n or 1))
        elif final == "B":
            self._down(n or 1)
        elif final == "C":
            self.col = min(self.columns - 1, self.col + (n or 1))
        elif final == "D":
            self.col = max(0, self.col - (n or 1))
        elif final == "G":
            self.col = (n or 1) - 1
        elif final == "K":
            if n in (None, 0):
                del line[self.col :]
            elif n == 1:
                line[: self.col + 1] = [" "] * min(len(line), self.col + 1)
            else:
                line.clear()
        elif final == "J" and n in (None, 0):
            del line[self.col :]
            del self.lines[self.row + 1 :]
        # SGR (colours), cursor shown or hidden, and the rest change nothing a test reads
