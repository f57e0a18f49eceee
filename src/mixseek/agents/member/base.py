"""Member base classes: a custom type subclasses `MemberAgent` (its `options_model` validates `self.options`),
`LLMMemberAgent` (an LLM with extra tools) or mixseek-core's `BaseMemberAgent`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel
from pydantic_ai import Agent, RunUsage, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.usage import UsageLimits

from mixseek.agents.model_settings import SettingsModel, agent_model_settings
from mixseek.config.prompt_defaults import DEFAULT_MEMBER_SYSTEM_INSTRUCTION
from mixseek.config.team_models import MemberAgentConfig
from mixseek.errors import RuntimeFailure
from mixseek.llm.factory import create_model
from mixseek.llm.governor import scope_context
from mixseek.llm.retrying import RetryingModel
from mixseek.llm.usage import usage_from_dict
from mixseek.models import member_agent as core


@dataclass
class MemberResult:
    """A member's answer and what producing it cost."""

    content: str
    usage: RunUsage = field(default_factory=RunUsage)
    messages: list[ModelMessage] = field(default_factory=list)


def usage_of(messages: Sequence[ModelMessage]) -> RunUsage:
    """The usage of exactly these messages, even when the run shared a usage object with others."""
    total = RunUsage()
    for message in messages:
        if isinstance(message, ModelResponse):
            total.incr(message.usage)
            total.requests += 1
        elif isinstance(message, ModelRequest):
            total.tool_calls += sum(isinstance(part, ToolReturnPart) for part in message.parts)
    return total


class MemberAgent(ABC):
    """A team member the leader can delegate a task to."""

    agent_type: ClassVar[str] = "custom"
    options_model: ClassVar[type[BaseModel] | None] = None
    """The pydantic model of this type's `[team.members.options]` table; None: the type takes none."""

    def __init__(self, config: MemberAgentConfig, *, role: str | None = None) -> None:
        self.config = config
        self.role = role or f"member '{config.agent_name}'"
        self.options: BaseModel | None = config.member_options(type(self).options_model, source=self.role)

    @classmethod
    def create(cls, config: MemberAgentConfig, *, role: str | None = None) -> MemberAgent:
        return cls(config, role=role)

    @abstractmethod
    async def run(
        self, task: str, *, usage: RunUsage | None = None, usage_limits: UsageLimits | None = None
    ) -> MemberResult:
        """Carry out one task; `usage` is the leader's shared usage, to be incremented."""


class LLMMemberAgent(MemberAgent):
    """A member that is one pydantic-ai agent; subclasses add tools or capabilities."""

    agent_type: ClassVar[str] = "plain"

    def __init__(self, config: MemberAgentConfig, *, role: str | None = None) -> None:
        super().__init__(config, role=role)
        self.model = create_model(config.model, role=self.role)
        self.agent: Agent[None, str] = Agent(
            RetryingModel(self.model, max_retries=config.max_retries),
            instructions=config.system_instruction or self.default_instruction(),
            system_prompt=config.system_prompt or (),
            model_settings=agent_model_settings(config),
            retries=config.max_retries,
            tools=self.tools(),
            capabilities=self.capabilities(),
            name=config.agent_name,
        )

    def default_instruction(self) -> str:
        return DEFAULT_MEMBER_SYSTEM_INSTRUCTION

    def tools(self) -> Sequence[Tool[None]]:
        return ()

    def capabilities(self) -> Sequence[AbstractCapability[Any]]:
        return ()

    async def run(
        self, task: str, *, usage: RunUsage | None = None, usage_limits: UsageLimits | None = None
    ) -> MemberResult:
        result = await self.agent.run(task, usage=usage, usage_limits=usage_limits)
        new_messages = result.new_messages()
        return MemberResult(content=result.output, usage=usage_of(new_messages), messages=new_messages)


class _CoreMetadata(BaseModel, extra="allow"):
    """A mixseek-core member's `metadata`: any table."""


class BaseMemberAgent(MemberAgent):
    """mixseek-core's member plugin: it implements `execute(task, context=None, **kwargs)`; `context` holds
    `execution_id`, `team_id`, `round_number`; usage: the result's `usage_info`, else its `all_messages`'."""

    options_model = _CoreMetadata
    config: core.MemberAgentConfig  # type: ignore[assignment]

    def __init__(self, config: core.MemberAgentConfig) -> None:
        self.config = config

    @classmethod
    def create(cls, config: MemberAgentConfig, *, role: str | None = None) -> MemberAgent:
        role = role or f"member '{config.agent_name}'"
        options = config.member_options(cls.options_model, source=role)
        metadata = options.model_dump() if options is not None else {}
        view = core.MemberAgentConfig(
            **config.model_dump(exclude={"model", "options"}),
            name=config.agent_name,
            type=config.agent_type,
            model=SettingsModel(
                RetryingModel(create_model(config.model, role=role), max_retries=config.max_retries),
                agent_model_settings(config),
            ),
            description=config.tool_description,
            tool_settings=metadata.get("tool_settings"),
            metadata=metadata,
        )
        agent = cls(view)
        agent.role, agent.options = role, options
        return agent

    @property
    def agent_name(self) -> str:
        return self.config.name

    @property
    def agent_type(self) -> str:  # type: ignore[override]
        return self.config.type

    @abstractmethod
    async def execute(
        self, task: str, context: dict[str, Any] | None = None, **kwargs: Any
    ) -> core.MemberAgentResult: ...

    async def initialize(self) -> None:
        """Called before each task."""

    async def cleanup(self) -> None:
        """Called after each task."""

    async def run(
        self, task: str, *, usage: RunUsage | None = None, usage_limits: UsageLimits | None = None
    ) -> MemberResult:
        await self.initialize()
        try:
            result = await self.execute(task, context=scope_context())
        finally:
            await self.cleanup()
        if result.is_error():
            raise RuntimeFailure(result.error_message or f"{self.role} failed")
        messages = list(result.all_messages or [])
        spent = usage_from_dict(result.usage_info) if result.usage_info else usage_of(messages)
        if usage is not None:
            usage.incr(spent)
        return MemberResult(content=result.content, usage=spent, messages=messages)
