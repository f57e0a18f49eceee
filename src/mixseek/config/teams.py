"""Loading team and member files, resolving `config = "path"` member references."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class MemberOrigin:
    """Where the keys of one loaded member were written, kept for error messages (no file is read again)."""

    team_file: Path
    index: int
    inline_keys: frozenset[str]
    member_file: Path | None = None  # the file its `config = "path"` names

    def key(self, key: str) -> tuple[Path, str]:
        """The file and dotted key that set `key`: the team file, or the member file it names."""
        if key in self.inline_keys or self.member_file is None:
            return self.team_file, f"team.members[{self.index}].{key}"
        return self.member_file, f"member.{key}"


@dataclass(frozen=True)
class LoadedTeam:
    """A team file's configuration, and where each member's keys came from."""

    config: TeamConfig
    member_origins: tuple[MemberOrigin, ...]
    workflow_key: str = "workflow"
    """How the file names its workflow's keys: `workflow` (a `[workflow]` table) or `team.workflow`."""


def _origin(team_file: Path, index: int, entry: dict[str, Any]) -> MemberOrigin:
    ref = entry.get("config")
    member_file = relative_path(team_file, ref) if isinstance(ref, str) else None
    return MemberOrigin(team_file, index, frozenset(entry), member_file)


def _lift_workflow(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    """The `[team]` table, with the file's top-level `[workflow]` table moved into it."""
    workflow = raw.pop("workflow", None)
    data = take_section(raw, "team", path=path)
    if workflow is not None:
        if "workflow" in data:
            raise ConfigError(path, "workflow", "given twice: as [workflow] and as [team.workflow]")
        data["workflow"] = workflow
    return data


def _workflow_keys(error: ConfigError, path: Path, top_level: bool) -> ConfigError:
    """Errors inside a top-level `[workflow]` named by its own keys (`workflow.steps[0].id`)."""
    if not top_level:
        return error
    problems = []
    for problem in error.all_problems():
        key = problem.key or ""
        if key == "team.workflow" or key.startswith(("team.workflow.", "team.workflow[")):
            problem = ConfigError(path, key.removeprefix("team."), problem.reason)
        problems.append(problem)
    return ConfigError.combine(problems)


def load_team(path: Path) -> LoadedTeam:
    """A team file's `[team]` table (and `[workflow]`) with every member reference resolved."""
    raw = read_toml(path)
    top_level_workflow = "workflow" in raw
    data = _lift_workflow(raw, path)
    members = data.get("members", [])
    if not isinstance(members, list):
        raise ConfigError(path, "team.members", "must be an array of tables ([[team.members]])")
    resolved = []
    origins = []
    for i, entry in enumerate(members):
        if not isinstance(entry, dict):
            raise ConfigError(path, f"team.members[{i}]", "must be a table")
        origins.append(_origin(path, i, entry))
        resolved.append(_resolve_member(dict(entry), i, path))
    if members:
        data["members"] = resolved
    try:
        config = validate_data(TeamConfig, data, path=path, section="team").value
    except ConfigError as exc:
        raise _workflow_keys(exc, path, top_level_workflow) from None
    return LoadedTeam(config, tuple(origins), "workflow" if top_level_workflow else "team.workflow")
