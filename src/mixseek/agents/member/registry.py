"""Member types by name, and loading custom member classes named in a team file."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from mixseek.agents.leader.config import MemberAgentConfig
from mixseek.agents.member.base import MemberAgent
from mixseek.errors import MixseekError
from mixseek.plugins import load_class

ENTRY_POINT_GROUP = "mixseek.member_types"
# Built-ins are imported only when a team uses them (code-exec and web-fetch pull in more).
_BUILTIN_CLASSES = {
    "plain": "mixseek.agents.member.plain:PlainMemberAgent",
    "web-search": "mixseek.agents.member.web_search:WebSearchMemberAgent",
    "web-fetch": "mixseek.agents.member.web_fetch:WebFetchMemberAgent",
    "code-exec": "mixseek.agents.member.code_exec:CodeExecMemberAgent",
}
BUILTIN_MEMBER_TYPES = (*_BUILTIN_CLASSES, "custom")

_TYPES: dict[str, type[MemberAgent]] = {}


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def unregister_member_type(name: str) -> None:
    """Forget a type registered with `register_member_type` (no error if unknown)."""
    _TYPES.pop(name, None)


def known_member_types() -> list[str]:
    """Every agent_type a team file may name: built-ins, registered and installed plugins."""
    names = list(BUILTIN_MEMBER_TYPES)
    for name in [*_TYPES, *_entry_points()]:
        if name not in names:
            names.append(name)
    return names


def is_known_member_type(name: str) -> bool:
    """Whether `name` is in `known_member_types()`; installed plugins are looked up only if needed."""
    return name in BUILTIN_MEMBER_TYPES or name in _TYPES or name in _entry_points()


def register_member_type(name: str, cls: type[MemberAgent]) -> None:
    """Make `agent_type = name` build `cls`; plugins call this at import time."""
    if not (isinstance(cls, type) and issubclass(cls, MemberAgent)):
        raise TypeError(f"{cls!r} is not a subclass of mixseek.agents.member.base.MemberAgent")
    _TYPES[name] = cls


def create_member(
    config: MemberAgentConfig, *, role: str | None = None, base_dir: Path | None = None
) -> MemberAgent:
    """Build the member agent a config describes."""
    cls: type[MemberAgent]
    if config.agent_type == "custom":
        assert config.class_path is not None  # enforced by MemberAgentConfig
        cls = load_class(config.class_path, MemberAgent, base_dir=base_dir)
    elif config.agent_type in _TYPES:
        cls = _TYPES[config.agent_type]
    elif config.agent_type in _BUILTIN_CLASSES:
        cls = load_class(_BUILTIN_CLASSES[config.agent_type], MemberAgent)
    else:
        entry = _entry_points().get(config.agent_type)
        if entry is None:
            raise MixseekError(
                f"member '{config.agent_name}': unknown agent_type '{config.agent_type}' "
                f"(known: {', '.join(known_member_types())})"
            )
        loaded = entry.load()
        register_member_type(config.agent_type, loaded)
        cls = loaded
    return cls(config, role=role)
