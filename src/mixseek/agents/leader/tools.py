"""One delegation tool per member: the leader calls it with a task, the member answers."""

from __future__ import annotations

from pydantic_ai import RunContext, Tool

from mixseek.agents.leader.dependencies import TeamDependencies
from mixseek.agents.leader.member_call import call_member
from mixseek.agents.member.base import MemberAgent
from mixseek.config.agent_models import MemberAgentConfig


def make_delegation_tool(member: MemberAgent, config: MemberAgentConfig) -> Tool[TeamDependencies]:
    """A tool named `tool_name` (or `delegate_to_{agent_name}`) described by `tool_description`."""

    async def delegate(ctx: RunContext[TeamDependencies], task: str) -> str:
        """Delegate a task to this member and return its answer.

        Args:
            task: 依頼するタスクの内容（メンバーが単独で理解できるように具体的に）
        """
        deps = ctx.deps
        async with deps.member_slots:
            submission = await call_member(
                member, config, task, usage=ctx.usage, usage_limits=ctx.usage_limits
            )
        deps.submissions.append(submission)
        if submission.status == "SUCCESS":
            return submission.content
        return f"ERROR: member '{config.agent_name}' failed: {submission.error_message}"

    return Tool(delegate, name=config.get_tool_name(), description=config.tool_description, takes_ctx=True)
