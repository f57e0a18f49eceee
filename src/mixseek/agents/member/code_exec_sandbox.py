"""How `run_python` isolates a script: *bubblewrap* (new user, PID, network, IPC, UTS and cgroup namespaces,
read-only system and Python, loopback-only network, tmpfs work dir) or *process* (a child with limits, for
hosts without a usable bubblewrap). RLIMIT_NPROC does not bind root, so under root the parent maps 0 (to
reach an interpreter under /root) and `NOBODY` (65534, which the bootstrap switches to) via `userns_maps`."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mixseek.agents.member._sandbox_child import NOBODY

SandboxMode = Literal["auto", "bubblewrap", "process"]
SandboxKind = Literal["bubblewrap", "process"]

BOOTSTRAP = Path(__file__).with_name("_sandbox_child.py")
WORKDIR = "/sandbox"
"""The script's directory inside bubblewrap: a tmpfs, also reachable as /tmp."""
BOOTSTRAP_INSIDE = "/run/mixseek/sandbox_child.py"
SCRIPT_INSIDE = f"{WORKDIR}/main.py"

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
_LAYOUT_CODE = (
    "import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, "
    "sys.exec_prefix, sys.base_exec_prefix]))"
)
_LAYOUT_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Sandbox:
    """The isolation `run_python` uses."""

    kind: SandboxKind
    bwrap: str | None = None
    reason: str = ""
    """For ``process``: why there is no bubblewrap (shown in the start-up warning)."""


@dataclass(frozen=True)
class PythonLayout:
    """Where an interpreter lives: what to run inside the sandbox and which host directories it reads."""

    executable: str
    directories: tuple[str, ...]


def find_bwrap() -> str | None:
    """The ``bwrap`` program on PATH, if any."""
    return shutil.which("bwrap")


@functools.cache
def python_layout(executable: str) -> PythonLayout:
    """The interpreter's executable and prefixes (a venv's and its base's), asked once per interpreter. Real
    paths are bound too, so that a venv's symlink to its base resolves inside the sandbox."""
    done = subprocess.run(
        [executable, "-I", "-c", _LAYOUT_CODE],
        capture_output=True,
        text=True,
        timeout=_LAYOUT_TIMEOUT_SECONDS,
        check=False,
        env={"PATH": os.environ.get("PATH") or os.defpath},
        cwd="/",
    )
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise ValueError(f"{executable} could not describe its installation: {detail}")
    reported, *prefixes = json.loads(done.stdout)
    program = reported or executable
    candidates: set[str] = set()
    for path in [*prefixes, os.path.dirname(program)]:
        if path:
            candidates.update({os.path.abspath(path), os.path.realpath(path)})
    candidates.add(os.path.dirname(os.path.realpath(program)))
    return PythonLayout(program, _outermost(candidates))


def _outermost(paths: set[str]) -> tuple[str, ...]:
    """Existing directories outside the system directories, none inside another, shortest first."""
    kept: list[str] = []
    for path in sorted(paths, key=len):
        if not os.path.isdir(path):
            continue
        covered = [*_SYSTEM_DIRS, *kept]
        if any(path == root or path.startswith(root.rstrip("/") + "/") for root in covered):
            continue
        kept.append(path)
    return tuple(kept)


def _parents(path: str) -> list[str]:
    """Create the parents of a mount point as 0755: bwrap would make them 0700, closed to the script."""
    argv: list[str] = []
    for parent in reversed(Path(path).parents[:-1]):
        argv += ["--perms", "0755", "--dir", str(parent)]
    return argv


def userns_maps() -> str:
    """The uid and gid map of the sandbox's user namespace when mixseek runs as root."""
    return f"0 0 1\n{NOBODY} {NOBODY} 1\n"


def bwrap_command(
    bwrap: str,
    layout: PythonLayout,
    *,
    environment: dict[str, str],
    tmpfs_bytes: int,
    script_fd: int,
    userns_fds: tuple[int, int] | None,
    inner: list[str],
) -> list[str]:
    """The full ``bwrap`` argv that runs ``inner``; ``script_fd`` becomes ``/sandbox/main.py``. ``userns_fds``
    = (block fd, info fd) when the parent writes the id maps (as root)."""
    argv = [bwrap, *_namespace_args(userns_fds)]
    for name, value in environment.items():
        argv += ["--setenv", name, value]
    return argv + _mount_args(layout, str(tmpfs_bytes), script_fd) + inner


def _namespace_args(userns_fds: tuple[int, int] | None) -> list[str]:
    """The namespaces to unshare and how the user namespace gets its id maps."""
    argv = ["--unshare-user"]
    if userns_fds is not None:
        block_fd, info_fd = userns_fds
        argv += ["--userns-block-fd", str(block_fd), "--info-fd", str(info_fd)]
    else:
        argv.append("--disable-userns")  # bwrap refuses it with --userns-block-fd
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    return [*argv, "--die-with-parent", "--new-session", "--clearenv"]


def _mount_args(layout: PythonLayout, size: str, script_fd: int) -> list[str]:
    """The sandbox's file system: read-only system and interpreter, tmpfs work dir, the script."""
    argv: list[str] = []
    for path in _SYSTEM_DIRS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in _SYSTEM_FILES:
        argv += [*_parents(path), "--ro-bind-try", path, path]
    # A Python installed under /tmp (a venv in a temporary checkout) needs a real /tmp to be bound
    # into: then /tmp is a tmpfs of its own instead of a link to the work dir.
    tmp_is_bound = any(path == "/tmp" or path.startswith("/tmp/") for path in layout.directories)
    if tmp_is_bound:
        argv += ["--size", size, "--perms", "1777", "--tmpfs", "/tmp"]
    for path in layout.directories:
        argv += [*_parents(path), "--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--perms", "1777", "--tmpfs", WORKDIR]
    argv += ["--size", size, "--perms", "1777", "--tmpfs", "/dev/shm"]
    argv += [] if tmp_is_bound else ["--symlink", WORKDIR, "/tmp"]
    argv += ["--perms", "0444", "--file", str(script_fd), SCRIPT_INSIDE]
    argv += ["--ro-bind", str(BOOTSTRAP), BOOTSTRAP_INSIDE, "--remount-ro", "/", "--chdir", WORKDIR]
    return argv
