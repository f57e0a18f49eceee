"""One recorded call of a member (answer or error, cost, time), alike for every kind of team."""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractContextManager

from opentelemetry.trace import Span
from pydantic_ai import RunUsage, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage
from pydantic_ai.usage import UsageLimits

import mixseek.telemetry as telemetry
from mixseek.agents.leader.models import MemberSubmission
from mixseek.agents.member.base import MemberAgent, MemberResult
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.errors import describe_exception


async def call_member(
    member: MemberAgent,
    config: MemberAgentConfig,
    task: str,
    *,
    usage: RunUsage | None = None,
    usage_limits: UsageLimits | None = None,
    step_id: str | None = None,
    messages: list[ModelMessage] | None = None,
) -> MemberSubmission:
    """Run `member` on `task` within its `timeout_seconds`; a failure is recorded, not raised, but a run cut
    by the usage limits is raised (the budget's). New messages are appended to `messages` when given."""
    timeout = float(config.timeout_seconds) if config.timeout_seconds else None
    started = time.perf_counter()
    result: MemberResult | None = None
    error: str | None = None
    deadline = asyncio.timeout(timeout)
    with member_span(config.agent_name, config.agent_type, step_id) as span:
        try:
            async with deadline:
                result = await member.run(task, usage=usage, usage_limits=usage_limits)
        except UsageLimitExceeded:
            raise
        except Exception as exc:
            # a TimeoutError the member raised itself (its own client's, say) is its error, not ours
            expired = deadline.expired() and isinstance(exc, TimeoutError)
            error = f"timed out after {timeout:g} s" if expired else describe_exception(exc)
        elapsed_ms = (time.perf_counter() - started) * 1000
        if result is not None and messages is not None:
            messages.extend(result.messages)
        return traced(
            span,
            MemberSubmission(
                agent_name=config.agent_name,
                agent_type=config.agent_type,
                content=result.content if result is not None else "",
                status="SUCCESS" if result is not None else "ERROR",
                error_message=error,
                usage=result.usage if result is not None else RunUsage(),
                execution_time_ms=elapsed_ms,
                step_id=step_id,
            ),
        )


def member_span(agent_name: str, agent_type: str, step_id: str | None) -> AbstractContextManager[Span]:
    """The span of one member call or workflow executor run."""
    return telemetry.span("mixseek.member", agent_name=agent_name, agent_type=agent_type, step_id=step_id)


def traced(span: Span, submission: MemberSubmission) -> MemberSubmission:
    """`submission`, its status, tokens and error recorded on its span."""
    telemetry.record(span, status=submission.status, **telemetry.usage(submission.usage))
    if submission.error_message is not None:
        telemetry.failed(span, submission.error_message)
    return submission
