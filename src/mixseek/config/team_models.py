"""Team settings as written in a team TOML file, and the `[workflow]` a team may have instead of a leader; in
the config layer so that loading a file imports no agent code."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from mixseek.config.agent_models import LeaderAgentConfig, MemberAgentConfig, validate_member_options
from mixseek.config.workflow_models import WorkflowConfig

__all__ = [
    "LeaderAgentConfig",
    "MemberAgentConfig",
    "MemberDispatch",
    "TeamConfig",
    "validate_member_options",
]

MemberDispatch = Literal["selective", "broadcast"]
"""`selective`: the leader calls the members it chooses, as tools. `broadcast`: every member answers
the round's prompt at once, then the leader, with no tools, writes the submission from the answers."""


def _duplicates(names: list[str]) -> list[str]:
    """The names that occur more than once, sorted."""
    return sorted({n for n in names if names.count(n) > 1})


class TeamConfig(BaseModel):
    """A team: a leader and the members it delegates to, or a workflow of executors."""

    model_config = ConfigDict(extra="forbid")

    team_id: str = Field(min_length=1)
    team_name: str = Field(min_length=1)
    max_concurrent_members: int = Field(default=15, ge=1, le=50)
    """How many members (or a workflow step's executors) run at once."""
    member_dispatch: MemberDispatch = "selective"
    leader: LeaderAgentConfig = Field(default_factory=LeaderAgentConfig)
    members: list[MemberAgentConfig] = Field(default_factory=list)
    workflow: WorkflowConfig | None = None
    """Steps of executors instead of a leader (`[workflow]` in a team file)."""

    @property
    def kind(self) -> str:
        """`workflow`, or the leader's member dispatch: how the team produces a submission."""
        return "workflow" if self.workflow is not None else self.member_dispatch

    @model_validator(mode="after")
    def validate_strategy(self) -> TeamConfig:
        if self.workflow is not None:
            for key, what in (
                ("leader", "a workflow team has no leader: its last step writes the submission"),
                ("members", "a workflow team has no members: its executors are in [workflow]"),
                ("member_dispatch", "a workflow team has no members to dispatch to"),
            ):
                if key in self.model_fields_set and (key != "members" or self.members):
                    raise ValueError(f"{key}: {what}")
        elif self.member_dispatch == "broadcast" and not self.members:
            raise ValueError('member_dispatch: "broadcast" needs at least one member')
        return self

    @field_validator("members")
    @classmethod
    def validate_member_count(
        cls, v: list[MemberAgentConfig], info: ValidationInfo
    ) -> list[MemberAgentConfig]:
        if info.data.get("member_dispatch") == "broadcast":
            return v  # every member runs each round; max_concurrent_members bounds how many at once
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
