"""What one team round produced, whatever the team's strategy: the submission, every member's or
executor's answer, the messages behind it, and the cost."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_ai import RunUsage
from pydantic_ai.messages import ModelMessage
from pydantic_core import to_json

from mixseek.agents.leader.models import MemberSubmissionsRecord


@dataclass
class TeamRunResult:
    """A team's submission for one round, what its members did, and what it cost."""

    output: str
    record: MemberSubmissionsRecord
    messages: list[ModelMessage]
    usage: RunUsage
    leader_usage: RunUsage
    """The leader's own requests (none for a workflow team)."""

    def messages_json(self) -> str:
        """The history as `ModelMessagesTypeAdapter.dump_json` gives it, without that slow adapter."""
        return to_json(self.messages, bytes_mode="base64").decode()
