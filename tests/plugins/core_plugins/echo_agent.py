"""The smallest mixseek-core member plugin: it echoes its task and the context it was given."""

from __future__ import annotations

from typing import Any

from mixseek.agents.member.base import BaseMemberAgent
from mixseek.models.member_agent import MemberAgentResult


class EchoAgent(BaseMemberAgent):
    async def execute(
        self, task: str, context: dict[str, Any] | None = None, **kwargs: Any
    ) -> MemberAgentResult:
        context = context or {}
        where = ", ".join(f"{key}={context.get(key)}" for key in ("execution_id", "team_id", "round_number"))
        return MemberAgentResult.success(
            content=f"[echo {self.config.metadata.get('tag', '-')}] {task} ({where})",
            agent_name=self.agent_name,
            agent_type=self.agent_type,
            usage_info={"requests": 1, "input_tokens": 7, "output_tokens": 3},
        )
