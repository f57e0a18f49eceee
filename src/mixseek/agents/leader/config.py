"""Team, leader and member settings as written in a team TOML file (seed 004)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from mixseek.agents.member.options import CodeExecOptions, WebFetchOptions, WebSearchOptions


def _duplicates(names: list[str]) -> list[str]:
    """The names that occur more than once, sorted."""
    return sorted({n for n in names if names.count(n) > 1})


class LeaderAgentConfig(BaseModel):
    """How the leader's model is called."""

    model_config = ConfigDict(extra="forbid")

    system_prompt: str | None = None
    model: str = "openai:gpt-4o"
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: int | None = Field(default=300, ge=10, le=600)
    max_retries: int = Field(default=3, ge=0)
    stop_sequences: list[str] | None = None
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    seed: int | None = None
    max_delegation_rounds: int = Field(default=5, ge=1, le=50)

    @field_validator("system_prompt")
    @classmethod
    def validate_system_prompt(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError(
                "system_prompt cannot be empty string. Use None for default prompt or provide valid text."
            )
        return v


class MemberAgentConfig(BaseModel):
    """One member agent, inline or merged from a `config = "path"` reference."""

    model_config = ConfigDict(extra="forbid")

    agent_name: str = Field(min_length=1)
    agent_type: str
    tool_name: str | None = None
    tool_description: str
    model: str
    system_instruction: str | None = None
    system_prompt: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: int | None = Field(default=None, ge=0)
    max_retries: int = Field(default=3, ge=0)
    stop_sequences: list[str] | None = None
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    seed: int | None = None
    config: str | None = None
    class_path: str | None = None
    web_fetch: WebFetchOptions = Field(default_factory=WebFetchOptions)
    code_exec: CodeExecOptions = Field(default_factory=CodeExecOptions)
    web_search: WebSearchOptions = Field(default_factory=WebSearchOptions)

    @field_validator("agent_type")
    @classmethod
    def validate_agent_type(cls, v: str) -> str:
        from mixseek.agents.member.registry import is_known_member_type, known_member_types

        if not is_known_member_type(v):
            raise ValueError(f"agent_type must be one of {', '.join(known_member_types())} (got '{v}')")
        return v

    @field_validator("tool_description")
    @classmethod
    def validate_tool_description(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("tool_description cannot be empty")
        return v

    @model_validator(mode="after")
    def validate_custom_class(self) -> MemberAgentConfig:
        if self.agent_type == "custom" and not self.class_path:
            raise ValueError(
                'agent_type "custom" needs class_path = "module:Class" or "path/to/file.py:Class"'
            )
        if self.class_path and self.agent_type != "custom":
            raise ValueError('class_path is only used with agent_type = "custom"')
        return self

    def get_tool_name(self) -> str:
        return self.tool_name or f"delegate_to_{self.agent_name}"


class TeamConfig(BaseModel):
    """A team: one leader and the members it may delegate to."""

    model_config = ConfigDict(extra="forbid")

    team_id: str = Field(min_length=1)
    team_name: str = Field(min_length=1)
    max_concurrent_members: int = Field(default=15, ge=1, le=50)
    leader: LeaderAgentConfig = Field(default_factory=LeaderAgentConfig)
    members: list[MemberAgentConfig] = Field(default_factory=list)

    @field_validator("members")
    @classmethod
    def validate_member_count(
        cls, v: list[MemberAgentConfig], info: ValidationInfo
    ) -> list[MemberAgentConfig]:
        max_count = info.data.get("max_concurrent_members", 15)
        if len(v) > max_count:
            raise ValueError(
                f"Too many members: {len(v)} > {max_count}. "
                f"Adjust max_concurrent_members or reduce member count."
            )
        return v

    @field_validator("members")
    @classmethod
    def validate_unique_agent_names(cls, v: list[MemberAgentConfig]) -> list[MemberAgentConfig]:
        duplicates = _duplicates([m.agent_name for m in v])
        if duplicates:
            raise ValueError(f"Duplicate agent_name detected: {duplicates}")
        return v

    @field_validator("members")
    @classmethod
    def validate_unique_tool_names(cls, v: list[MemberAgentConfig]) -> list[MemberAgentConfig]:
        duplicates = _duplicates([m.get_tool_name() for m in v])
        if duplicates:
            raise ValueError(f"Duplicate tool_name detected: {duplicates}")
        return v
