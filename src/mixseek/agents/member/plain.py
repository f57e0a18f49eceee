"""`plain`: an LLM with its system instruction and no tools."""

from __future__ import annotations

from typing import ClassVar

from mixseek.agents.member.base import LLMMemberAgent


class PlainMemberAgent(LLMMemberAgent):
    """Answers from the model's own knowledge."""

    agent_type: ClassVar[str] = "plain"
