"""mixseek-core's member-plugin records (`mixseek.models.member_agent`): the config a `BaseMemberAgent`
receives and the result its `execute` returns; `BaseMemberAgent.run` turns them into mixseek's."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AgentType(StrEnum):
    PLAIN = "plain"
    WEB_SEARCH = "web_search"
    WEB_FETCH = "web_fetch"
    CODE_EXECUTION = "code_execution"
    CUSTOM = "custom"


class ResultStatus(StrEnum):
    SUCCESS = "success"
    ERROR = "error"
    WARNING = "warning"


class MemberAgentConfig(BaseModel):
    """A member as mixseek-core names its settings. `model` is the pydantic-ai model mixseek built from the
    team file's model string (governed, overridable like every member's); `metadata` is the member's
    `[team.members.options]` table, `tool_settings` its `tool_settings` entry."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    type: str = "custom"
    model: Any = None
    temperature: float | None = None
    max_tokens: int | None = None
    stop_sequences: list[str] | None = None
    top_p: float | None = None
    seed: int | None = None
    timeout_seconds: int | None = None
    max_retries: int = 3
    system_instruction: str | None = None
    system_prompt: str | None = None
    description: str = ""
    tool_settings: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class MemberAgentResult(BaseModel):
    """What a plugin's `execute` returns; build it with `success` or `error`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: ResultStatus
    content: str
    agent_name: str
    agent_type: str
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))
    execution_time_ms: int | None = None
    usage_info: dict[str, Any] | None = None
    """Token and request counts the plugin reports (`requests`, `input_tokens`, `output_tokens`, ...)."""
    error_message: str | None = None
    error_code: str | None = None
    warning_message: str | None = None
    retry_count: int = Field(default=0, ge=0)
    max_retries_exceeded: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    all_messages: list[Any] | None = None
    """The pydantic-ai messages of the plugin's runs: the usage when `usage_info` is not given."""

    @classmethod
    def success(cls, content: str, agent_name: str, agent_type: str, **fields: Any) -> MemberAgentResult:
        return cls(
            status=ResultStatus.SUCCESS,
            content=content,
            agent_name=agent_name,
            agent_type=agent_type,
            **fields,
        )

    @classmethod
    def error(cls, error_message: str, agent_name: str, agent_type: str, **fields: Any) -> MemberAgentResult:
        return cls(
            status=ResultStatus.ERROR,
            content="",
            agent_name=agent_name,
            agent_type=agent_type,
            error_message=error_message,
            **fields,
        )

    def is_success(self) -> bool:
        return self.status == ResultStatus.SUCCESS

    def is_error(self) -> bool:
        return self.status == ResultStatus.ERROR
