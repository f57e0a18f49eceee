"""The leader agent of a team: it delegates to members through tools and writes the submission."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from pydantic_ai import Agent, RunContext, RunUsage, Tool
from pydantic_ai.capabilities import PrepareTools
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import UsageLimits

import mixseek.telemetry as telemetry
from mixseek.agents.concurrency import run_bounded
from mixseek.agents.leader.member_call import call_member
from mixseek.agents.leader.models import MemberSubmission, MemberSubmissionsRecord
from mixseek.agents.member.base import MemberAgent, usage_of
from mixseek.agents.member.registry import create_member
from mixseek.agents.model_settings import agent_model_settings
from mixseek.agents.team_result import TeamRunResult
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.prompt_defaults import (
    BROADCAST_CLOSING,
    DEFAULT_BROADCAST_LEADER_INSTRUCTION,
    DEFAULT_LEADER_SYSTEM_INSTRUCTION,
)
from mixseek.config.team_models import TeamConfig
from mixseek.llm.factory import create_model
from mixseek.llm.retrying import RetryingModel


def _answer(submission: MemberSubmission) -> str:
    heading = f"### {submission.agent_name}（{submission.agent_type}）"
    if submission.status == "SUCCESS":
        return f"{heading}\n{submission.content}"
    return f"{heading}: 失敗\nエラー: {submission.error_message or '不明なエラー'}"


def broadcast_prompt(prompt: str, submissions: Sequence[MemberSubmission]) -> str:
    """What a broadcast leader is told: the round's prompt, the members' answers in team-file order
    (failed ones with their error), then the request to write the submission."""
    succeeded = sum(s.status == "SUCCESS" for s in submissions)
    answers = "\n\n".join(_answer(s) for s in submissions)
    return (
        f"{prompt}\n\n---\n## メンバーの回答（{len(submissions)}件中{succeeded}件成功）\n\n"
        f"{answers}\n\n---\n{BROADCAST_CLOSING}"
    )


@dataclass
class TeamDependencies:
    """The leader's `deps`: member tools record their answers here, at most `member_slots` at once
    when the leader calls several tools in one response."""

    member_slots: asyncio.Semaphore
    submissions: list[MemberSubmission] = field(default_factory=list)


def make_delegation_tool(member: MemberAgent, config: MemberAgentConfig) -> Tool[TeamDependencies]:
    """A tool named `tool_name` (or `delegate_to_{agent_name}`) described by `tool_description`."""

    async def delegate(ctx: RunContext[TeamDependencies], task: str) -> str:
        """Delegate a task to this member and return its answer.

        Args:
            task: 依頼するタスクの内容（メンバーが単独で理解できるように具体的に）
        """
        async with ctx.deps.member_slots:
            submission = await call_member(
                member, config, task, usage=ctx.usage, usage_limits=ctx.usage_limits
            )
        ctx.deps.submissions.append(submission)
        if submission.status == "SUCCESS":
            return submission.content
        return f"ERROR: member '{config.agent_name}' failed: {submission.error_message}"

    return Tool(delegate, name=config.get_tool_name(), description=config.tool_description, takes_ctx=True)


class LeaderTeam:
    """A configured leader team, ready to run rounds: the leader calls members as tools
    (`member_dispatch = "selective"`), or writes from every member's answer (`"broadcast"`)."""

    def __init__(
        self,
        config: TeamConfig,
        *,
        base_dir: Path | None = None,
        members: Mapping[str, MemberAgent] | None = None,
    ) -> None:
        self.config = config
        self.members: dict[str, MemberAgent] = dict(members or {})
        for member_config in config.members:
            if member_config.agent_name not in self.members:
                self.members[member_config.agent_name] = create_member(
                    member_config,
                    role=f"member '{member_config.agent_name}' of team '{config.team_id}'",
                    base_dir=base_dir,
                )
        leader = config.leader
        broadcast = config.member_dispatch == "broadcast"
        default_instruction = (
            DEFAULT_BROADCAST_LEADER_INSTRUCTION if broadcast else DEFAULT_LEADER_SYSTEM_INSTRUCTION
        )
        tools = (
            [] if broadcast else [make_delegation_tool(self.members[m.agent_name], m) for m in config.members]
        )
        self.agent: Agent[TeamDependencies, str] = Agent(
            RetryingModel(
                create_model(leader.model, role=f"leader of team '{config.team_id}'"),
                max_retries=leader.max_retries,
            ),
            deps_type=TeamDependencies,
            instructions=leader.system_prompt or default_instruction,
            model_settings=agent_model_settings(leader),
            tools=tools,
            capabilities=[PrepareTools(self._withdraw_members_when_done)],
            name=config.team_id,
        )

    async def _withdraw_members_when_done(
        self, ctx: RunContext[TeamDependencies], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        """After `max_delegation_rounds` model responses the leader must answer: a model that
        keeps delegating (small local models do) cannot loop for ever."""
        return tool_defs if ctx.run_step <= self.config.leader.max_delegation_rounds else []

    async def _broadcast(
        self, prompt: str, deps: TeamDependencies, usage: RunUsage, usage_limits: UsageLimits | None
    ) -> None:
        """Every member on the round's prompt at once (at most `max_concurrent_members` running);
        a failing member is recorded as failed and never stops the others."""
        jobs = [
            partial(
                call_member, self.members[m.agent_name], m, prompt, usage=usage, usage_limits=usage_limits
            )
            for m in self.config.members
        ]
        # recorded in the order of the team file, whichever finished first
        deps.submissions.extend(await run_bounded(jobs, deps.member_slots))

    async def run(
        self,
        prompt: str,
        *,
        round_number: int = 1,
        usage_limits: UsageLimits | None = None,
        user_prompt: str | None = None,
    ) -> TeamRunResult:
        """One leader run, each member call recorded (`user_prompt` is unused: the leader sees the
        round's prompt)."""
        deps = TeamDependencies(asyncio.Semaphore(self.config.max_concurrent_members))
        usage = RunUsage()
        with telemetry.span(
            "mixseek.leader",
            team_id=self.config.team_id,
            round=round_number,
            member_dispatch=self.config.member_dispatch,
        ) as span:
            if self.config.member_dispatch == "broadcast":
                await self._broadcast(prompt, deps, usage, usage_limits)
                prompt = broadcast_prompt(prompt, deps.submissions)
            result = await self.agent.run(prompt, deps=deps, usage=usage, usage_limits=usage_limits)
            telemetry.record(span, **telemetry.usage(result.usage))
        messages = result.all_messages()
        record = MemberSubmissionsRecord(
            team_id=self.config.team_id,
            team_name=self.config.team_name,
            round_number=round_number,
            submissions=list(deps.submissions),
        )
        return TeamRunResult(
            output=result.output,
            record=record,
            messages=messages,
            usage=result.usage,
            leader_usage=usage_of(messages),
        )
