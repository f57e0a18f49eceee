"""Member types by name: built-ins, types registered in code or as plugins (the `mixseek.member_types`
entry-point group), and custom classes named in a team file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mixseek.config.bundle import ExecutionConfig
from mixseek.config.registries import (
    CUSTOM_MEMBER_TYPE,
    MEMBER_TYPES,
    is_known_member_type,
    known_member_types,
    options_model_of,
)
from mixseek.config.team_models import MemberAgentConfig
from mixseek.errors import ConfigError, MixseekError
from mixseek.plugins import load_class

if TYPE_CHECKING:
    from mixseek.agents.member.base import MemberAgent

ENTRY_POINT_GROUP = MEMBER_TYPES.group
BUILTIN_MEMBER_TYPES = (*MEMBER_TYPES.builtin_names(), CUSTOM_MEMBER_TYPE)

__all__ = [
    "BUILTIN_MEMBER_TYPES",
    "ENTRY_POINT_GROUP",
    "create_member",
    "is_known_member_type",
    "known_member_types",
    "member_class",
    "member_problems",
    "register_member_type",
    "unregister_member_type",
]


def register_member_type(name: str, cls: type[MemberAgent]) -> None:
    """Make `agent_type = name` build `cls`; plugins call this at import time."""
    from mixseek.agents.member.base import MemberAgent

    if not (isinstance(cls, type) and issubclass(cls, MemberAgent)):
        raise TypeError(f"{cls!r} is not a subclass of mixseek.agents.member.base.MemberAgent")
    try:
        options_model_of(cls)
    except MixseekError as exc:
        raise TypeError(str(exc)) from None
    MEMBER_TYPES.register(name, cls)


def unregister_member_type(name: str) -> None:
    """Forget a type registered with `register_member_type` (no error if unknown)."""
    MEMBER_TYPES.unregister(name)


def member_class(config: MemberAgentConfig, *, base_dir: Path | None = None) -> type[MemberAgent]:
    """The class a member config names, checked to be a `MemberAgent` (agent code is imported only here)."""
    from mixseek.agents.member.base import MemberAgent

    if config.agent_type == CUSTOM_MEMBER_TYPE:
        assert config.class_path is not None  # enforced by MemberAgentConfig
        return load_class(config.class_path, MemberAgent, base_dir=base_dir)
    return MEMBER_TYPES.load_subclass(
        config.agent_type, MemberAgent, "mixseek.agents.member.base.MemberAgent"
    )


def create_member(
    config: MemberAgentConfig, *, role: str | None = None, base_dir: Path | None = None
) -> MemberAgent:
    """Build the member agent a config describes; it receives its validated options as `.options`."""
    return member_class(config, base_dir=base_dir).create(config, role=role)


def member_problems(config: ExecutionConfig) -> list[ConfigError]:
    """Plugin and custom member classes that are no `MemberAgent` or refuse their options, one error each."""
    problems: list[ConfigError] = []
    for entry in config.teams:
        for agent in entry.agents():
            member = agent.config
            if member.agent_type in BUILTIN_MEMBER_TYPES and member.agent_type != CUSTOM_MEMBER_TYPE:
                continue
            try:
                cls = member_class(member, base_dir=entry.path.parent)
            except MixseekError as exc:
                if member.agent_type != CUSTOM_MEMBER_TYPE:
                    source, key = agent.key_origin("agent_type")
                    problems.append(ConfigError(source, key, str(exc)))
                continue
            source, key = agent.key_origin("options")
            try:
                member.member_options(cls.options_model, source=str(source), key=key)
            except ConfigError as exc:
                problems.extend(exc.all_problems())
    return problems
