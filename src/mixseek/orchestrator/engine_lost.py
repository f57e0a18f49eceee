"""The error of an engine that stopped answering in the middle of an execution. Its own module: the Temporal
engine raises it and `mixseek exec` catches it without loading either engine (`orchestrator.engine` imports
the Temporal one when it is chosen)."""

from __future__ import annotations

from mixseek.errors import RuntimeFailure


class EngineLost(RuntimeFailure):
    """The engine stopped answering in the middle of an execution (its Temporal server went away):
    the execution is left interrupted, to be resumed once the engine is back."""
