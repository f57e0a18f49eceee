"""Real mounts for the tests of full and read-only disks: a tmpfs of a chosen size, a read-only bind.

Mounting needs root (CAP_SYS_ADMIN). Without it these tests skip, saying so, unless
MIXSEEK_TEST_REQUIRE_TMPFS=1 (CI, which runs as root) makes that a failure: a test that skips
everywhere it runs proves nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REQUIRED = os.environ.get("MIXSEEK_TEST_REQUIRE_TMPFS") == "1"


def _mount(*args: str) -> None:
    try:
        subprocess.run(["mount", *args], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = exc.stderr.strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
        reason = f"mounting is not permitted here (needs root): mount {' '.join(args)}: {detail}"
        if REQUIRED:
            pytest.fail(f"{reason} (MIXSEEK_TEST_REQUIRE_TMPFS=1)")
        pytest.skip(reason)


def tmpfs(point: Path, size: str, mounts: list[Path]) -> None:
    """Mount a tmpfs of `size` (mount's syntax: 2m, 48m) at `point`; `mounts` undoes it."""
    point.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point))
    mounts.append(point)


def read_only(directory: Path, mounts: list[Path]) -> None:
    """Make `directory` a read-only mount of itself: every write fails, for root as well."""
    _mount("--bind", str(directory), str(directory))
    mounts.append(directory)
    _mount("-o", "remount,bind,ro", str(directory))


def unmount(points: list[Path]) -> None:
    """Undo the mounts, last first."""
    for point in reversed(points):
        subprocess.run(["umount", "-l", str(point)], check=False, capture_output=True)
