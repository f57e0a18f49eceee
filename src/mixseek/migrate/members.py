"""Member agents (`[[team.members]]` or an `[agent]` file of mixseek-core): `name`/`type`, an instruction as
`{ text = "..." }`, `description` as tool description, `web_search`-style types, `tool_settings.<tool>`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mixseek.config.agent_models import MemberAgentConfig
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
from mixseek.migrate.prune import prune_invalid
from mixseek.migrate.report import Report

MEMBER_TYPES = {
    "plain": "plain",
    "web_search": "web-search",
    "web-search": "web-search",
    "web_fetch": "web-fetch",
    "web-fetch": "web-fetch",
    "code_execution": "code-exec",
    "code-exec": "code-exec",
    "custom": "custom",
}
_TYPE_CHANGES = {
    "web_fetch": "the provider's web fetch tool became web-fetch, which fetches pages itself (httpx)",
    "code_execution": "the provider's code execution tool became code-exec, which runs Python locally "
    "in a sandbox",
}
_DIRECT = ("tool_name", "system_prompt", *AGENT_KEYS)
_HANDLED = (
    {*_DIRECT, "name", "agent_name", "type", "agent_type"}
    | {"tool_description", "description", "model", "system_instruction"}
    | {"plugin", "tool_settings", "metadata"}
)
_DROPS = {
    "capabilities": "informational only: the member type decides the tools",
    "retry_config": "no equivalent: model requests are retried per request (max_retries)",
    "usage_limits": "no equivalent: use the budgets of orchestrator.toml",
}
# tool options with an equivalent, by mixseek-core tool name
_TOOL_OPTIONS = {"web_search": ("web_search", ("max_uses", "allowed_domains", "blocked_domains"))}
_TOOL_OF_TYPE = {"web-search": "web_search", "web-fetch": "web_fetch", "code-exec": "code_execution"}
_TOOL_DROPS = {
    "web_fetch": "no equivalent: these configured the provider's fetch tool; web-fetch has its own "
    "limits ([web_fetch] table)",
    "code_execution": "no equivalent: these configured the provider's code execution tool; code-exec "
    "has its own limits ([code_exec] table)",
}


def _member_type(data: Mapping[str, Any], where: Where, report: Report) -> Any:
    key = "type" if "type" in data else "agent_type"
    legacy = data.get(key)
    if not isinstance(legacy, str):
        return legacy
    converted = MEMBER_TYPES.get(legacy)
    if converted is None:
        report.change(where.file, where.key(key), f"unknown member type '{legacy}' written as it is")
        return legacy
    if legacy in _TYPE_CHANGES:
        report.change(where.file, where.key(key), _TYPE_CHANGES[legacy])
    return converted


def _class_path(plugin: Any, where: Where, report: Report) -> str | None:
    """`class_path` from mixseek-core's `[agent.plugin]` (`path` or `agent_module`, and `agent_class`)."""
    if not isinstance(plugin, Mapping):
        return None
    cls = plugin.get("agent_class")
    module = plugin.get("agent_module") or plugin.get("path")
    for extra in sorted(set(plugin) - {"agent_class", "agent_module", "path"}):
        report.drop(where.file, where.at("plugin").key(extra), "no equivalent")
    if not isinstance(cls, str) or not isinstance(module, str):
        report.drop(where.file, where.key("plugin"), "needs agent_class and path or agent_module")
        return None
    report.change(
        where.file,
        where.key("plugin"),
        f"class_path = '{module}:{cls}': the class must now subclass mixseek.agents.member.base."
        "MemberAgent (a relative path resolves against the team file)",
    )
    return f"{module}:{cls}"


def _tool_settings(data: Mapping[str, Any], member_type: Any, where: Where, report: Report) -> dict[str, Any]:
    """This mixseek's per-type option tables from `tool_settings` (or `metadata.tool_settings`)."""
    settings = data.get("tool_settings")
    at = where.at("tool_settings")
    if settings is None:
        metadata = data.get("metadata")
        settings = metadata.get("tool_settings") if isinstance(metadata, Mapping) else None
        at = where.at("metadata").at("tool_settings")
    if not isinstance(settings, Mapping):
        return {}
    options: dict[str, Any] = {}
    for tool, values in settings.items():
        known = _TOOL_OPTIONS.get(tool)
        if known is None or _TOOL_OF_TYPE.get(str(member_type)) != tool or not isinstance(values, Mapping):
            reason = _TOOL_DROPS.get(tool, "no equivalent options for this member type")
            report.drop(at.file, at.key(tool), reason)
            continue
        table, keys = known
        kept = {k: values[k] for k in keys if k in values}
        if kept:
            options[table] = kept
        for extra in sorted(set(values) - set(keys)):
            report.drop(at.file, at.at(tool).key(extra), "no equivalent option")
    return options


def convert_member(data: Mapping[str, Any], where: Where, report: Report) -> dict[str, Any]:
    """A member table in this mixseek's form (the keys `MemberAgentConfig` knows)."""
    member: dict[str, Any] = {}
    name = data.get("name", data.get("agent_name"))
    if name is not None:
        member["agent_name"] = name
    member_type = _member_type(data, where, report)
    if member_type is not None:
        member["agent_type"] = member_type
    description = data.get("tool_description") or data.get("description")
    member["tool_description"] = description or f"Delegate task to {name if name is not None else 'agent'}"
    model = data.get("model", LEGACY_DEFAULT_MODEL)
    member["model"] = convert_model(model, where, "model", report)
    copy_keys(data, member, _DIRECT)
    if "system_instruction" in data:
        text = instruction_text(data["system_instruction"], where, "system_instruction", report)
        if text is not None:
            member["system_instruction"] = text
    metadata = dict(data["metadata"]) if isinstance(data.get("metadata"), Mapping) else {}
    class_path = _class_path(data.get("plugin"), where, report)
    if class_path is not None:  # the plugin reads its `metadata`, `tool_settings` in it, as before
        member["class_path"] = class_path
        if data.get("tool_settings") is not None:
            metadata.setdefault("tool_settings", data["tool_settings"])
        if metadata:
            member["options"] = metadata
    else:
        member.update(_tool_settings(data, member_type, where, report))
        if set(metadata) - {"tool_settings"}:
            report.drop(where.file, where.key("metadata"), "no equivalent")
    if "tool_description" in data and "description" in data:
        report.drop(where.file, where.key("description"), "tool_description is used instead")
    taken = carry_settings(data, member, where, report)
    drop_all(data, sorted(set(data) - _HANDLED - taken - {"config"}), where, report, _DROPS)
    return prune_invalid(MemberAgentConfig, member, where, report)
