"""Bootstrap of the code-exec sandbox: limit this process, then exec the user's script.

`code_exec_tool.run_python` starts this file as a script, not as an import, with the target interpreter::

    python -I -S _sandbox_child.py STATUS_FD AS_BYTES CPU_SECONDS NOFILE PROGRAM [ARG ...]

It sets the resource limits on itself and replaces itself (`os.execv`) with ``PROGRAM ARG ...``.
Resource limits survive `execv` and are inherited by every process the script spawns, so the user's
interpreter starts already constrained and nothing runs between `fork` and the limits but this file.
(A `preexec_fn` would do the same inside the parent's forked child, which CPython documents as unsafe
when the parent has threads.)

STATUS_FD is a pipe to the parent, made close-on-exec here. Protocol: ``b"R"`` once the limits are in
place, then a successful `execv` closes the pipe; on failure ``b"E"`` + a message is written and the
process exits with 127. The parent can thus tell "the interpreter never ran this file" (no bytes) and
"the sandbox could not be set up" (``E``) apart from failures of the user's code.

Kept free of third-party imports and of syntax newer than Python 3.8, because `python_executable`
may name another interpreter than the one running mixseek.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys

_USAGE = "usage: _sandbox_child.py STATUS_FD AS_BYTES CPU_SECONDS NOFILE PROGRAM [ARG ...]"


def _clamp(value: int, hard: int) -> int:
    """`value`, but never above an existing finite hard limit (raising one needs privileges)."""
    if hard == resource.RLIM_INFINITY:
        return value
    return min(value, hard)


def _limit(which: int, soft: int, hard: int) -> None:
    _, current_hard = resource.getrlimit(which)
    new_hard = _clamp(hard, current_hard)
    resource.setrlimit(which, (min(_clamp(soft, current_hard), new_hard), new_hard))


def apply_limits(as_bytes: int, cpu_seconds: int, nofile: int) -> None:
    """Set the limits on the current process (and so on everything it execs or spawns)."""
    # Address space: allocations beyond it fail (MemoryError in Python) instead of growing.
    _limit(resource.RLIMIT_AS, as_bytes, as_bytes)
    # No core dumps of crashed user code.
    _limit(resource.RLIMIT_CORE, 0, 0)
    # CPU-time backstop behind the parent's wall-clock timeout: SIGXCPU at the soft limit,
    # SIGKILL one second later at the hard one.
    _limit(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)
    # Open descriptors: per process, so lowering it is safe for any user, root included.
    _limit(resource.RLIMIT_NOFILE, nofile, nofile)
    # RLIMIT_NPROC is deliberately not set: it counts every process of the real user id (not just
    # this sandbox), so a low value breaks on a busy account or with concurrent runs, and root
    # (CAP_SYS_RESOURCE / CAP_SYS_ADMIN) ignores it anyway.


def _report(status_fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):
        os.write(status_fd, data)


def main(argv: list[str]) -> None:
    if len(argv) < 6:
        sys.stderr.write(_USAGE + "\n")
        os._exit(127)
    try:
        status_fd = int(argv[1])
        os.set_inheritable(status_fd, False)
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"_sandbox_child: bad status descriptor: {exc}\n")
        os._exit(127)
    try:
        apply_limits(int(argv[2]), int(argv[3]), int(argv[4]))
        _report(status_fd, b"R")
        program = argv[5]
        os.execv(program, [program, *argv[6:]])
    except Exception as exc:  # anything here means the sandbox never started the user's code
        _report(status_fd, f"E{type(exc).__name__}: {exc}".encode("utf-8", "replace"))
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv)
