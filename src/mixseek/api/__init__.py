"""The Python API: `Mixseek`, `load_workspace`, and `ExecutionRun` (re-exported by `mixseek`)."""

from mixseek.api.execution import ExecutionRun
from mixseek.api.mixseek import Mixseek, load_workspace

__all__ = ["ExecutionRun", "Mixseek", "load_workspace"]
