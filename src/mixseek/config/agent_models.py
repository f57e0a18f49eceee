"""Leader and member settings as written in a team TOML file. In the config layer so that loading a file
imports no agent code; member types and options models come from `mixseek.config.registries`, which imports a
plugin class only when a file names it."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mixseek.config.loader import errors_from_validation
from mixseek.config.member_options import CodeExecOptions, WebFetchOptions, WebSearchOptions
from mixseek.config.model_ref import ModelRef
from mixseek.config.model_settings import ModelSettingsTable, check_model_settings
from mixseek.config.registries import (
    BUILTIN_OPTION_TABLES,
    CUSTOM_MEMBER_TYPE,
    is_known_member_type,
    known_member_types,
    member_options_model,
)
from mixseek.errors import ConfigError, MixseekError


def validate_member_options(model: type[BaseModel] | None, value: Any, owner: str) -> BaseModel | None:
    """`value` (a table, an options object or None) as an instance of a member type's options model."""
    if model is None:
        if value is not None:
            raise ValueError(f"{owner} takes no options")
        return None
    return model.model_validate({} if value is None else value)


class LeaderAgentConfig(BaseModel):
    """How the leader's model is called."""

    model_config = ConfigDict(extra="forbid")

    system_prompt: str | None = None
    model: ModelRef = "openai:gpt-4o"
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: int | None = Field(default=300, ge=10, le=600)
    max_retries: int = Field(default=3, ge=0)
    stop_sequences: list[str] | None = None
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    seed: int | None = None
    model_settings: ModelSettingsTable = None
    max_delegation_rounds: int = Field(default=5, ge=1, le=50)

    @field_validator("system_prompt")
    @classmethod
    def validate_system_prompt(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError(
                "system_prompt cannot be empty string. Use None for default prompt or provide valid text."
            )
        return v

    @model_validator(mode="after")
    def validate_model_settings(self) -> LeaderAgentConfig:
        check_model_settings(self, [self.model])
        return self


class MemberAgentConfig(BaseModel):
    """One member agent, inline or merged from a `config = "path"` reference."""

    model_config = ConfigDict(extra="forbid")

    agent_name: str = Field(min_length=1)
    agent_type: str
    tool_name: str | None = None
    tool_description: str
    model: ModelRef
    system_instruction: str | None = None
    system_prompt: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_seconds: int | None = Field(default=None, ge=0)
    max_retries: int = Field(default=3, ge=0)
    stop_sequences: list[str] | None = None
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    seed: int | None = None
    model_settings: ModelSettingsTable = None
    config: str | None = None
    class_path: str | None = None
    web_fetch: WebFetchOptions = Field(default_factory=WebFetchOptions)
    code_exec: CodeExecOptions = Field(default_factory=CodeExecOptions)
    web_search: WebSearchOptions = Field(default_factory=WebSearchOptions)
    options: SerializeAsAny[BaseModel] | dict[str, Any] | None = Field(default=None, validate_default=True)
    """`[team.members.options]`: validated against the `options_model` of a registered type when loaded;
    a custom class's table stays raw until its class is loaded (see `member_options`)."""

    @field_validator("agent_type")
    @classmethod
    def validate_agent_type(cls, v: str) -> str:
        if not is_known_member_type(v):
            raise ValueError(f"agent_type must be one of {', '.join(known_member_types())} (got '{v}')")
        if v != CUSTOM_MEMBER_TYPE and v not in BUILTIN_OPTION_TABLES:
            try:
                member_options_model(v)  # an installed plugin that fails to import is reported here
            except MixseekError as exc:
                raise ValueError(str(exc)) from None
        return v

    @field_validator("options", mode="plain")
    @classmethod
    def validate_options(cls, value: Any, info: ValidationInfo) -> BaseModel | dict[str, Any] | None:
        agent_type = info.data.get("agent_type")
        if agent_type is None:
            return None  # a bad agent_type is reported by itself
        if agent_type == CUSTOM_MEMBER_TYPE:  # the class, and so its model, is not loaded yet
            if value is None or isinstance(value, BaseModel):
                return value
            if not isinstance(value, dict):
                raise ValueError("must be a table")
            return dict(value)
        if agent_type in BUILTIN_OPTION_TABLES:
            if value is None:
                return None
            table = BUILTIN_OPTION_TABLES[agent_type]
            if table is None:
                raise ValueError(f"agent_type '{agent_type}' takes no options")
            raise ValueError(f"agent_type '{agent_type}' takes its options from [team.members.{table}]")
        return validate_member_options(member_options_model(agent_type), value, f"agent_type '{agent_type}'")

    @field_validator("tool_description")
    @classmethod
    def validate_tool_description(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("tool_description cannot be empty")
        return v

    @model_validator(mode="after")
    def validate_custom_class(self) -> MemberAgentConfig:
        if self.agent_type == CUSTOM_MEMBER_TYPE and not self.class_path:
            raise ValueError(
                'agent_type "custom" needs class_path = "module:Class" or "path/to/file.py:Class"'
            )
        if self.class_path and self.agent_type != CUSTOM_MEMBER_TYPE:
            raise ValueError('class_path is only used with agent_type = "custom"')
        check_model_settings(self, [self.model])
        return self

    def get_tool_name(self) -> str:
        return self.tool_name or f"delegate_to_{self.agent_name}"

    def member_options(
        self, options_model: type[BaseModel] | None, *, source: str, key: str = "options"
    ) -> BaseModel | None:
        """The validated options the member's class receives (built-in types: their own table; a custom
        class's: its `options_model`); a bad value is a ConfigError naming `source` and `key`."""
        if self.agent_type in BUILTIN_OPTION_TABLES:
            table = BUILTIN_OPTION_TABLES[self.agent_type]
            options: BaseModel | None = getattr(self, table) if table else None
            return options
        if options_model is not None and isinstance(self.options, options_model):
            return self.options
        try:
            return validate_member_options(options_model, self.options, f"agent_type '{self.agent_type}'")
        except ValidationError as exc:
            raise errors_from_validation(exc, model=BaseModel, path=source, section=key) from None
        except ValueError as exc:
            raise ConfigError(source, key, str(exc)) from None
