"""How one dashboard server is set up."""

from __future__ import annotations

import ipaddress
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mixseek.config.workspace import Workspace

MIN_REMOTE_TOKEN_CHARS = 16  # beyond loopback, anyone who can reach the dashboard may guess


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the dashboard on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def default_exec_argv() -> list[str]:
    """The command the dashboard starts executions with: this Python's `mixseek`."""
    return [sys.executable, "-m", "mixseek.cli"]


@dataclass(frozen=True)
class UISettings:
    workspace: Workspace
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None  # required of every request when set (beyond loopback: required)
    exec_argv: list[str] = field(default_factory=default_exec_argv)  # `exec ...` is appended
    live_poll_seconds: float = 0.5  # how often a live stream looks for new rows

    @property
    def db_path(self) -> Path:
        return self.workspace.db_path
