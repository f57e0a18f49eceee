"""mixseek-core's member-plugin records: the config a `BaseMemberAgent` gets and the result it returns.
Both accept mixseek-core's other fields as they are (`extra="allow"`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AgentType(StrEnum):
    PLAIN, WEB_SEARCH, WEB_FETCH = "plain", "web_search", "web_fetch"
    CODE_EXECUTION, CUSTOM = "code_execution", "custom"


class ResultStatus(StrEnum):
    SUCCESS, ERROR, WARNING = "success", "error", "warning"


class MemberAgentConfig(BaseModel):
    """`model`: the pydantic-ai model mixseek built from the member's model string; `metadata`: its
    `[team.members.options]`; also its settings (`temperature`, `system_instruction`, ...)."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)
    name: str
    type: str = "custom"
    model: Any = None
    description: str = ""
    tool_settings: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class MemberAgentResult(BaseModel):
    """What `execute` returns: its usage is `usage_info` (`requests`, `input_tokens`, ...) if given, else
    that of `all_messages` (the pydantic-ai messages of its runs)."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)
    status: ResultStatus
    content: str
    agent_name: str
    agent_type: str
    usage_info: dict[str, Any] | None = None
    error_message: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    all_messages: list[Any] | None = None

    @classmethod
    def success(cls, content: str, agent_name: str, agent_type: str, **fields: Any) -> MemberAgentResult:
        return cls(status="success", content=content, agent_name=agent_name, agent_type=agent_type, **fields)

    @classmethod
    def error(cls, error_message: str, agent_name: str, agent_type: str, **fields: Any) -> MemberAgentResult:
        fields.update(agent_name=agent_name, agent_type=agent_type, error_message=error_message)
        return cls(status="error", content="", **fields)

    def is_success(self) -> bool:
        return self.status == ResultStatus.SUCCESS

    def is_error(self) -> bool:
        return self.status == ResultStatus.ERROR
