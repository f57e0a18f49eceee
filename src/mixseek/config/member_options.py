"""Per-type settings of the built-in member types, written as sub-tables of a member entry."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class WebFetchOptions(BaseModel):
    """`[team.members.web_fetch]`: limits of the URL-fetching tool."""

    model_config = ConfigDict(extra="forbid")

    timeout_seconds: float = Field(default=15.0, gt=0, le=300)
    max_bytes: int = Field(default=2_000_000, gt=0, le=50_000_000)
    max_redirects: int = Field(default=5, ge=0, le=20)
    max_chars: int = Field(default=20_000, gt=0)
    allow_private_addresses: bool = False
    user_agent: str = "mixseek-web-fetch/0.1"


class CodeExecOptions(BaseModel):
    """`[team.members.code_exec]`: limits of the Python-running tool."""

    model_config = ConfigDict(extra="forbid")

    timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    memory_mb: int = Field(default=512, ge=16, le=65536)
    max_output_chars: int = Field(default=20_000, gt=0)
    max_processes: int = Field(default=128, ge=4, le=4096)
    """Processes and threads the code may run at once (a fork bomb stops there)."""
    python_executable: str | None = None
    sandbox: Literal["auto", "bubblewrap", "process"] = "auto"
    """auto: bubblewrap when it works here, else a plain process (with a warning at start-up)."""


class WebSearchOptions(BaseModel):
    """`[team.members.web_search]`: passed to the provider's built-in search."""

    model_config = ConfigDict(extra="forbid")

    max_uses: int | None = Field(default=None, gt=0)
    allowed_domains: list[str] | None = None
    blocked_domains: list[str] | None = None
