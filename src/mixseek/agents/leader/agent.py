"""The leader agent of a team: it delegates to members through tools and writes the submission."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic_ai import Agent, ModelMessagesTypeAdapter, RunContext, RunUsage
from pydantic_ai.capabilities import PrepareTools
from pydantic_ai.messages import ModelMessage
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import UsageLimits

from mixseek.agents.leader.config import TeamConfig
from mixseek.agents.leader.dependencies import TeamDependencies
from mixseek.agents.leader.models import MemberSubmissionsRecord
from mixseek.agents.leader.tools import make_delegation_tool
from mixseek.agents.member.base import MemberAgent, usage_of
from mixseek.agents.member.registry import create_member
from mixseek.agents.model_settings import agent_model_settings
from mixseek.llm import create_model
from mixseek.llm.retrying import RetryingModel

DEFAULT_LEADER_SYSTEM_INSTRUCTION = """
あなたは研究チームのリーダーエージェントです。
タスクを分析し、利用可能なMember Agentから適切なものを選択して実行してください。
""".strip()


@dataclass
class TeamRunResult:
    """A team's submission for one round, what its members did, and what it cost."""

    output: str
    record: MemberSubmissionsRecord
    messages: list[ModelMessage]
    usage: RunUsage
    leader_usage: RunUsage

    def messages_json(self) -> str:
        """The leader's message history as JSON that `ModelMessagesTypeAdapter` loads back."""
        return ModelMessagesTypeAdapter.dump_json(self.messages).decode()


def build_message_serializer() -> None:
    """Build pydantic-ai's message serializer now: it is built on first use (about 85 ms here),
    which would otherwise fall on the first round's save."""
    ModelMessagesTypeAdapter.dump_json([])


def leader_role(team: TeamConfig) -> str:
    return f"leader of team '{team.team_id}'"


def member_role(team: TeamConfig, agent_name: str) -> str:
    return f"member '{agent_name}' of team '{team.team_id}'"


class LeaderTeam:
    """A configured team, ready to run rounds; models are created once here."""

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
        self.agent: Agent[TeamDependencies, str] = Agent(
            RetryingModel(
                create_model(leader.model, role=leader_role(config)), max_retries=leader.max_retries
            ),
            deps_type=TeamDependencies,
            instructions=leader.system_prompt or DEFAULT_LEADER_SYSTEM_INSTRUCTION,
            model_settings=agent_model_settings(leader),
            tools=[make_delegation_tool(self.members[m.agent_name], m) for m in config.members],
            capabilities=[PrepareTools(self._withdraw_members_when_done)],
            name=config.team_id,
        )

    async def _withdraw_members_when_done(
        self, ctx: RunContext[TeamDependencies], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        """After `max_delegation_rounds` model responses the leader must answer: a model that
        keeps delegating (small local models do) cannot loop for ever."""
        return tool_defs if ctx.run_step <= self.config.leader.max_delegation_rounds else []

    async def run(
        self, prompt: str, *, round_number: int = 1, usage_limits: UsageLimits | None = None
    ) -> TeamRunResult:
        """One leader run: members are called as the leader decides, each call recorded."""
        deps = TeamDependencies(
            team_id=self.config.team_id,
            team_name=self.config.team_name,
            round_number=round_number,
            max_concurrent_members=self.config.max_concurrent_members,
        )
        result = await self.agent.run(prompt, deps=deps, usage_limits=usage_limits)
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
