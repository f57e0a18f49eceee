"""A mixseek-core member plugin with a pydantic-ai tool, its settings under `metadata.tool_settings`."""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent, RunContext

from mixseek.agents.member.base import BaseMemberAgent
from mixseek.models.member_agent import AgentType, MemberAgentConfig, MemberAgentResult, ResultStatus


class LookupAgent(BaseMemberAgent):
    def __init__(self, config: MemberAgentConfig) -> None:
        super().__init__(config)
        self.table: dict[str, str] = config.metadata.get("tool_settings", {}).get("lookup", {})
        self.agent: Agent[dict[str, str], str] = Agent(
            model=self.config.model, deps_type=dict, system_prompt="Answer with the lookup tool."
        )
        self.started = 0

        @self.agent.tool
        async def lookup(ctx: RunContext[dict[str, str]], key: str) -> str:
            """The value stored under `key`."""
            return ctx.deps.get(key, "unknown")

    async def initialize(self) -> None:
        self.started += 1

    async def execute(
        self, task: str, context: dict[str, Any] | None = None, **kwargs: Any
    ) -> MemberAgentResult:
        assert self.agent_type == AgentType.CUSTOM and self.started
        result = await self.agent.run(task, deps=self.table)
        answer = MemberAgentResult.success(
            content=result.output,
            agent_name=self.agent_name,
            agent_type=self.agent_type,
            all_messages=result.all_messages(),
        )
        assert answer.status == ResultStatus.SUCCESS
        return answer
