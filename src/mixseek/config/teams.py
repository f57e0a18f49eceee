"""Loading team and member files, resolving `config = "path"` member references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mixseek.config.loader import (
    errors_from_validation,
    load_section,
    read_toml,
    relative_path,
    take_section,
    validate_data,
)
from mixseek.config.team_models import MemberAgentConfig, TeamConfig
from mixseek.errors import ConfigError


def load_member_file(path: Path) -> MemberAgentConfig:
    """A standalone member file: its `[member]` table."""
    return load_section(MemberAgentConfig, path, "member").value


def _resolve_member(entry: dict[str, Any], index: int, team_file: Path) -> dict[str, Any]:
    """Merge a referenced member file under the inline keys that override it."""
    ref = entry.get("config")
    if ref is None:
        return entry
    key = f"team.members[{index}].config"
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(team_file, key, "must be a non-empty path string")
    ref_path = relative_path(team_file, ref)
    if not ref_path.exists():
        raise ConfigError(team_file, key, f"member file not found: {ref_path}")
    referenced = take_section(read_toml(ref_path), "member", path=ref_path)
    referenced.pop("config", None)
    merged = {**referenced, **entry, "config": str(ref_path)}
    try:
        MemberAgentConfig.model_validate(merged)
    except ValidationError as exc:
        own = {k for k in entry if k != "config"}
        problems = []
        for err in errors_from_validation(exc, model=MemberAgentConfig, path="", section=None).all_problems():
            field = (err.key or "").split(".")[0].split("[")[0]
            if field in own or field not in referenced:
                problems.append(ConfigError(team_file, f"team.members[{index}].{err.key}", err.reason))
            else:
                problems.append(ConfigError(ref_path, f"member.{err.key}", err.reason))
        raise ConfigError.combine(problems) from None
    return merged


def member_key_origin(team_file: Path, index: int, key: str) -> tuple[Path, str]:
    """The file and dotted key that set `key` of member `index`: the team file, or the member file it names.

    For error messages about a loaded team; an inline key overrides the referenced file's.
    """
    inline = f"team.members[{index}].{key}"
    try:
        entry = read_toml(team_file)["team"]["members"][index]
        ref = entry.get("config")
        if key in entry or not isinstance(ref, str):
            return team_file, inline
        return relative_path(team_file, ref), f"member.{key}"
    except (ConfigError, KeyError, IndexError, TypeError, AttributeError):
        return team_file, inline


def load_team_file(path: Path) -> TeamConfig:
    """A team file's `[team]` table with every member reference resolved."""
    data = take_section(read_toml(path), "team", path=path)
    members = data.get("members", [])
    if not isinstance(members, list):
        raise ConfigError(path, "team.members", "must be an array of tables ([[team.members]])")
    resolved = []
    for i, entry in enumerate(members):
        if not isinstance(entry, dict):
            raise ConfigError(path, f"team.members[{i}]", "must be a table")
        resolved.append(_resolve_member(dict(entry), i, path))
    if members:
        data["members"] = resolved
    return validate_data(TeamConfig, data, path=path, section="team").value
