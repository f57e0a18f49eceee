"""The leader agent of a team: it delegates to members through tools and writes the submission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from pydantic_ai import Agent, RunContext, RunUsage
from pydantic_ai.capabilities import PrepareTools
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import UsageLimits

import mixseek.telemetry as telemetry
from mixseek.agents.concurrency import run_bounded
from mixseek.agents.leader.broadcast import broadcast_prompt
from mixseek.agents.leader.dependencies import TeamDependencies
from mixseek.agents.leader.member_call import call_member
from mixseek.agents.leader.models import MemberSubmission, MemberSubmissionsRecord
from mixseek.agents.leader.tools import make_delegation_tool
from mixseek.agents.member.base import MemberAgent, usage_of
from mixseek.agents.member.registry import create_member
from mixseek.agents.model_settings import agent_model_settings
from mixseek.agents.team_result import TeamRunResult
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.prompt_defaults import (
    DEFAULT_BROADCAST_LEADER_INSTRUCTION,
    DEFAULT_LEADER_SYSTEM_INSTRUCTION,
)
from mixseek.config.team_models import TeamConfig
from mixseek.llm.factory import create_model
from mixseek.llm.retrying import RetryingModel

__all__ = ["LeaderTeam", "TeamRunResult"]


def leader_role(team: TeamConfig) -> str:
    return f"leader of team '{team.team_id}'"


def member_role(team: TeamConfig, agent_name: str) -> str:
    return f"member '{agent_name}' of team '{team.team_id}'"


class LeaderTeam:
    """A configured leader team, ready to run rounds; models are created once here.

    With `member_dispatch = "selective"` the leader calls members as tools; with `"broadcast"`
    every member answers the round's prompt first and the leader, with no tools, writes the
    submission from their answers."""

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
                    member_config, role=member_role(config, member_config.agent_name), base_dir=base_dir
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
                create_model(leader.model, role=leader_role(config)), max_retries=leader.max_retries
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

        def job(config: MemberAgentConfig) -> Callable[[], Awaitable[MemberSubmission]]:
            member = self.members[config.agent_name]
            return lambda: call_member(member, config, prompt, usage=usage, usage_limits=usage_limits)

        # recorded in the order of the team file, whichever finished first
        deps.submissions.extend(await run_bounded([job(m) for m in self.config.members], deps.member_slots))

    async def run(
        self,
        prompt: str,
        *,
        round_number: int = 1,
        usage_limits: UsageLimits | None = None,
        user_prompt: str | None = None,
    ) -> TeamRunResult:
        """One leader run, each member call recorded: members are called as the leader decides,
        or (broadcast) all of them before the leader writes. `user_prompt` is unused: the
        leader sees the round's prompt."""
        deps = TeamDependencies(
            team_id=self.config.team_id,
            team_name=self.config.team_name,
            round_number=round_number,
            max_concurrent_members=self.config.max_concurrent_members,
        )
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
            team_id=deps.team_id,
            team_name=deps.team_name,
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
