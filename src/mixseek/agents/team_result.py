"""What one team round produced, whatever the team's strategy: the submission, every member's or
executor's answer, the messages behind it, and the cost."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_ai import ModelMessagesTypeAdapter, RunUsage
from pydantic_ai.messages import ModelMessage

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
        """The message history as JSON that `ModelMessagesTypeAdapter` loads back."""
        return ModelMessagesTypeAdapter.dump_json(self.messages).decode()
