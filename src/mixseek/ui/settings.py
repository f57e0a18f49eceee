"""How one dashboard server is set up."""

from __future__ import annotations

import ipaddress
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mixseek.config.workspace import Workspace

MIN_REMOTE_TOKEN_CHARS = 16
"""The shortest token a dashboard bound beyond loopback takes: anyone who can reach it may guess."""


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the dashboard on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def default_exec_argv() -> list[str]:
    """The command the dashboard starts executions with: this Python's `mixseek`, so an execution
    started from the browser runs on the same engine and store as one started from the CLI."""
    return [sys.executable, "-m", "mixseek.cli"]


@dataclass(frozen=True)
class UISettings:
    workspace: Workspace
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    """Required of every request when set; `mixseek ui` refuses a non-loopback bind without one,
    or with one shorter than MIN_REMOTE_TOKEN_CHARS."""
    exec_argv: list[str] = field(default_factory=default_exec_argv)
    """The `mixseek` command line that executions started from the browser run (`exec ...`
    is appended)."""
    live_poll_seconds: float = 0.5
    """How often an open execution page's stream looks for new rows (a saved round shows up
    within about this long)."""

    @property
    def db_path(self) -> Path:
        return self.workspace.db_path
