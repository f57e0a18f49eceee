"""One delegation tool per member: the leader calls it with a task, the member answers."""

from __future__ import annotations

import asyncio
import time

from pydantic_ai import RunContext, RunUsage, Tool, UsageLimitExceeded

from mixseek.agents.leader.config import MemberAgentConfig
from mixseek.agents.leader.dependencies import TeamDependencies
from mixseek.agents.leader.models import MemberSubmission
from mixseek.agents.member.base import MemberAgent, MemberResult
from mixseek.errors import describe_exception


def _error_text(exc: BaseException, timeout: float | None) -> str:
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout:g} s" if timeout else "timed out"
    return describe_exception(exc)


def make_delegation_tool(member: MemberAgent, config: MemberAgentConfig) -> Tool[TeamDependencies]:
    """A tool named `tool_name` (or `delegate_to_{agent_name}`) described by `tool_description`."""
    timeout = float(config.timeout_seconds) if config.timeout_seconds else None

    async def delegate(ctx: RunContext[TeamDependencies], task: str) -> str:
        """Delegate a task to this member and return its answer.

        Args:
            task: 依頼するタスクの内容（メンバーが単独で理解できるように具体的に）
        """
        deps = ctx.deps
        async with deps.member_slots:
            started = time.perf_counter()
            result: MemberResult | None = None
            error: str | None = None
            try:
                async with asyncio.timeout(timeout):
                    result = await member.run(task, usage=ctx.usage, usage_limits=ctx.usage_limits)
            except UsageLimitExceeded:
                raise
            except Exception as exc:
                error = _error_text(exc, timeout)
            elapsed_ms = (time.perf_counter() - started) * 1000
        deps.submissions.append(
            MemberSubmission(
                agent_name=config.agent_name,
                agent_type=config.agent_type,
                content=result.content if result is not None else "",
                status="SUCCESS" if result is not None else "ERROR",
                error_message=error,
                usage=result.usage if result is not None else RunUsage(),
                execution_time_ms=elapsed_ms,
            )
        )
        if result is not None:
            return result.content
        return f"ERROR: member '{config.agent_name}' failed: {error}"

    return Tool(delegate, name=config.get_tool_name(), description=config.tool_description, takes_ctx=True)
