"""Bootstrap of the code-exec sandbox: start the user's script under limits, leave no process behind. Run by
the target interpreter: ``python -I -S _sandbox_child.py STATUS_FD WATCH_PID AS_BYTES CPU_SECONDS NOFILE
NPROC USER PROGRAM [ARG ...]``. The supervisor, a child subreaper (so a double-forked daemon stays its
descendant), forks a child that sets the limits, lowers its privileges and execs PROGRAM; when the script
ends, or on SIGTERM (the parent's timeout) or the parent's death, it SIGKILLs every descendant.

* STATUS_FD: lines ``R`` (about to exec), ``E<message>`` (the sandbox failed; exit 127) and
  ``X<wait status>`` (the script ended, nothing of it is left); nothing: this file never ran.
* WATCH_PID: the parent's pid, watched by the parent-death signal (0: none).
* NPROC: ``N`` (RLIMIT_NPROC in a fresh user namespace) or ``+N``, N more than the final real user id
  runs now (RLIMIT_NPROC counts all its processes and threads).
* USER: ``same``; ``nobody`` (uid/gid 65534, in bubblewrap started by root); ``real-nobody`` (a plain
  process under root: real uid 65534 so that RLIMIT_NPROC applies, effective uid 0 so that an
  interpreter under /root stays readable, no capability, so no CAP_SYS_PTRACE on the parent).

No third-party imports, no syntax newer than Python 3.8: `python_executable` may be another interpreter.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
import time

NOBODY = 65534
_USAGE = (
    "usage: _sandbox_child.py STATUS_FD WATCH_PID AS_BYTES CPU_SECONDS NOFILE NPROC USER PROGRAM [ARG...]"
)
_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_CLEANUP_ROUNDS = 500
_libc: object = None


class _Stop(Exception):
    """SIGTERM or the parent's death: stop the script now."""


def _prctl(option: int, value: int) -> bool:
    """`prctl(option, value)`; False where it is unavailable (not Linux) or refused."""
    global _libc
    try:
        if _libc is None:
            import ctypes

            _libc = ctypes.CDLL(None, use_errno=True)
        return int(_libc.prctl(option, value, 0, 0, 0)) == 0  # type: ignore[attr-defined]
    except (OSError, AttributeError, ImportError):
        return False


def _clamp(value: int, hard: int) -> int:
    """`value`, but never above an existing finite hard limit (raising one needs privileges)."""
    if hard == resource.RLIM_INFINITY:
        return value
    return min(value, hard)


def _limit(which: int, value: int) -> None:
    _, current_hard = resource.getrlimit(which)
    new = _clamp(value, current_hard)
    resource.setrlimit(which, (new, new))


def count_tasks(uid: int) -> int | None:
    """Processes and threads whose real user id is `uid` (what RLIMIT_NPROC counts), from /proc;
    None without /proc (not Linux)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    total = 0
    for name in names:
        if not name.isdigit():
            continue
        real_uid, threads = -1, 0
        try:
            with open("/proc/" + name + "/status") as status:
                for line in status:
                    if line.startswith("Uid:"):
                        real_uid = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if real_uid == uid:
            total += threads
    return total


def _become(user: str) -> int:
    """Lower the privileges as USER says; returns the real user id the process ends with."""
    if user == "same":
        return os.getuid()
    if user == "nobody":
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        return NOBODY
    if user == "real-nobody":
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last_cap = int(f.read())
        for cap in range(last_cap + 1):
            if not _prctl(_PR_CAPBSET_DROP, cap):
                raise OSError(f"cannot drop capability {cap} from the bounding set")
        os.setgroups([])
        # Effective and saved uid stay 0 so that an interpreter under /root stays readable; the
        # script can therefore set its real uid back to 0 (and leave RLIMIT_NPROC): only the
        # bubblewrap mode contains code run as root (the README says so).
        os.setresuid(NOBODY, 0, 0)
        return NOBODY
    raise ValueError(f"unknown USER {user!r}")


def apply_limits(as_bytes: int, cpu_seconds: int, nofile: int, nproc: int | None) -> None:
    """Set the limits on the current process (and so on everything it execs or spawns)."""
    # Address space: allocations beyond it fail (MemoryError in Python) instead of growing.
    _limit(resource.RLIMIT_AS, as_bytes)
    # No core dumps of crashed user code.
    _limit(resource.RLIMIT_CORE, 0)
    # CPU-time backstop behind the parent's wall-clock timeout: SIGXCPU at the soft limit,
    # SIGKILL one second later at the hard one.
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (_clamp(cpu_seconds, hard), _clamp(cpu_seconds + 1, hard)))
    # Open descriptors: per process.
    _limit(resource.RLIMIT_NOFILE, nofile)
    # Processes and threads of the (final) real user id: a fork bomb stops here.
    if nproc is not None:
        _limit(resource.RLIMIT_NPROC, nproc)


def _report(status_fd: int, line: str) -> None:
    with contextlib.suppress(OSError):
        os.write(status_fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))


def _start_child(status_fd: int, argv: list[str]) -> None:
    """In the forked child: limits, lower privileges, then exec the program. Never returns."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        as_bytes, cpu_seconds, nofile = int(argv[3]), int(argv[4]), int(argv[5])
        nproc, user = argv[6], argv[7]
        if nproc.startswith("+"):
            target_uid = NOBODY if user != "same" else os.getuid()
            running = count_tasks(target_uid)
            process_limit = None if running is None else running + int(nproc[1:])
        else:
            process_limit = int(nproc)
        apply_limits(as_bytes, cpu_seconds, nofile, process_limit)
        _become(user)
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)  # no setuid program can raise what was lowered here
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # after _become: a credential change clears it
        _close_inherited(keep=status_fd)
        _report(status_fd, "R")
        program = argv[8]
        os.execv(program, [program, *argv[9:]])
    except BaseException as exc:  # anything here means the sandbox never started the user's code
        _report(status_fd, f"E{type(exc).__name__}: {exc}")
    os._exit(127)


def _close_inherited(keep: int) -> None:
    """Close every descriptor but stdin, stdout, stderr and `keep` (itself closed by the exec)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return
    for name in names:
        fd = int(name)
        if fd > 2 and fd != keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _descendants(root: int) -> list[int]:
    """Every process below `root` in the process tree, from /proc (none found without it)."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found: list[int] = []
    pending = list(children.get(root, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def _reap() -> None:
    """Collect every child that has ended, without waiting."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants() -> None:
    """SIGKILL everything below this process, until nothing is left. Processes whose parent dies are
    re-parented to this subreaper, so each round finds the ones the previous round orphaned; the process limit
    bounds how many a fork bomb can add meanwhile."""
    me = os.getpid()
    for _ in range(_CLEANUP_ROUNDS):
        victims = _descendants(me)
        if not victims:
            break
        for pid in victims:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
        _reap()
    _reap()


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Stop()


def supervise(status_fd: int, watch_pid: int, argv: list[str]) -> int:
    """Fork the child, wait for the script while reaping orphans, clean up; the script's wait status."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    if watch_pid:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    script_pid = 0
    wait_status = -1
    try:
        if watch_pid and os.getppid() != watch_pid:
            raise _Stop()  # the parent died before the parent-death signal was armed
        script_pid = os.fork()
        if script_pid == 0:
            _start_child(status_fd, argv)
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == script_pid:
                wait_status = status
                break
    except _Stop:
        pass
    except OSError as exc:
        _report(status_fd, f"E{type(exc).__name__}: {exc}")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if script_pid:
            kill_descendants()
    return wait_status


def main(argv: list[str]) -> None:
    if len(argv) < 9:
        sys.stderr.write(_USAGE + "\n")
        os._exit(127)
    try:
        status_fd = int(argv[1])
        os.set_inheritable(status_fd, False)
        watch_pid = int(argv[2])
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"_sandbox_child: bad arguments: {exc}\n")
        os._exit(127)
    wait_status = supervise(status_fd, watch_pid, argv)
    if wait_status < 0:
        os._exit(127)
    _report(status_fd, f"X{wait_status}")
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
