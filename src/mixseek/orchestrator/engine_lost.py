"""The error of an engine that stopped answering in the middle of an execution. Its own module: the Temporal
engine raises it and `mixseek exec` catches it without loading either engine (`orchestrator.engine` imports
the Temporal one when it is chosen)."""

from __future__ import annotations

from mixseek.errors import RuntimeFailure


class EngineLost(RuntimeFailure):
    """The engine stopped answering mid-execution: it is left interrupted, to resume once it is back."""
