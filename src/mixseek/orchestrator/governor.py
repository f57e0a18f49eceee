"""The request governor's import path before it moved to `mixseek.llm.governor`."""

from mixseek.llm.governor import Governor

__all__ = ["Governor"]
