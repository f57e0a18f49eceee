"""Team files: the leader's `system_instruction` becomes its `system_prompt`; a referenced member overrides
only `tool_name` and `tool_description`; "broadcast" is dropped for a team left with no members."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from mixseek.config.agent_models import LeaderAgentConfig
from mixseek.config.team_models import MemberDispatch, TeamConfig
from mixseek.migrate.fields import (
    AGENT_KEYS,
    LEGACY_DEFAULT_MODEL,
    Where,
    carry_settings,
    convert_model,
    copy_keys,
    drop_all,
    instruction_text,
)
from mixseek.migrate.members import convert_member
from mixseek.migrate.prune import prune_invalid
from mixseek.migrate.report import Report

# (reference as written, where it is written) -> the `config` value for the new team file, or None
ResolveMember = Callable[[str, Where], str | None]

_OVERRIDES = ("tool_name", "tool_description")


def _leader(data: Mapping[str, Any], where: Where, report: Report) -> dict[str, Any]:
    leader: dict[str, Any] = {
        "model": convert_model(data.get("model", LEGACY_DEFAULT_MODEL), where, "model", report)
    }
    copy_keys(data, leader, AGENT_KEYS)
    prompt = data.get("system_prompt")
    instruction = instruction_text(data.get("system_instruction"), where, "system_instruction", report)
    if isinstance(instruction, str) and not instruction.strip():
        report.drop(where.file, where.key("system_instruction"), "empty: the default leader prompt applies")
        instruction = None
    if isinstance(prompt, str) and prompt.strip() and isinstance(instruction, str):
        leader["system_prompt"] = f"{prompt.rstrip()}\n\n{instruction}"
        report.change(where.file, where.key("system_instruction"), "appended to the leader's system_prompt")
    elif instruction is not None:
        leader["system_prompt"] = instruction
    elif prompt is not None:
        leader["system_prompt"] = prompt
    handled = {"model", "system_prompt", "system_instruction", *AGENT_KEYS}
    handled |= carry_settings(data, leader, where, report)
    drop_all(data, sorted(set(data) - handled), where, report, {})
    return prune_invalid(LeaderAgentConfig, leader, where, report)


def _referenced(
    entry: Mapping[str, Any], where: Where, report: Report, resolve: ResolveMember
) -> dict[str, Any] | None:
    ref = entry["config"]
    config = resolve(ref, where) if isinstance(ref, str) else None
    if config is None:
        return None
    member: dict[str, Any] = {"config": config}
    copy_keys(entry, member, _OVERRIDES)
    for key in sorted(set(entry) - {"config", *_OVERRIDES}):
        report.drop(
            where.file,
            where.key(key),
            "ignored by mixseek-core beside config (only tool_name and tool_description override a "
            "member file), so not carried over",
        )
    return member


def _dispatch(dispatch: object, has_members: bool, team: dict[str, Any], at: Where, report: Report) -> None:
    """`member_dispatch` as written, when this mixseek accepts it for the converted team."""
    if dispatch is None:
        return
    if dispatch not in get_args(MemberDispatch):
        report.drop(
            at.file, at.key("member_dispatch"), f"unknown value {dispatch!r}: the leader chooses members"
        )
    elif dispatch == "broadcast" and not has_members:
        report.drop(at.file, at.key("member_dispatch"), "no member was carried over to broadcast to")
    else:
        team["member_dispatch"] = dispatch


def convert_team(
    data: Mapping[str, Any], where: Where, report: Report, resolve: ResolveMember
) -> dict[str, Any]:
    """A team file's data in this mixseek's form (`{"team": {...}}`)."""
    for key in sorted(set(data) - {"team"}):
        report.drop(where.file, key, "unknown top-level key")
    body = data.get("team")
    if not isinstance(body, Mapping):
        return {"team": {}}
    at = Where(where.file, "team")
    team: dict[str, Any] = {}
    copy_keys(body, team, ("team_id", "team_name", "max_concurrent_members"))
    leader = body.get("leader", {})
    team["leader"] = _leader(leader if isinstance(leader, Mapping) else {}, at.at("leader"), report)
    members = []
    for i, entry in enumerate(body.get("members") or []):
        entry_at = Where(where.file, f"team.members[{i}]")
        if not isinstance(entry, Mapping):
            report.drop(where.file, entry_at.prefix, "not a table")
            continue
        member = (
            _referenced(entry, entry_at, report, resolve)
            if "config" in entry
            else convert_member(entry, entry_at, report)
        )
        if member is not None:
            members.append(member)
    if members:
        team["members"] = members
    _dispatch(body.get("member_dispatch"), bool(members), team, at, report)
    drop_all(
        body,
        sorted(
            set(body)
            - {"team_id", "team_name", "max_concurrent_members", "leader", "members", "member_dispatch"}
        ),
        at,
        report,
        {},
    )
    # checked without its members (they are checked one by one above), so without the dispatch
    # that needs them
    shell = {k: v for k, v in team.items() if k not in ("leader", "members", "member_dispatch")}
    pruned = prune_invalid(TeamConfig, shell, at, report)
    dispatch = {"member_dispatch": team["member_dispatch"]} if "member_dispatch" in team else {}
    return {
        "team": {**pruned, **dispatch, "leader": team["leader"], **({"members": members} if members else {})}
    }
