"""Which new file each source config (recognised by content) becomes: its own path, so users find it, except
the main orchestrator file, which becomes `configs/orchestrator.toml` (`exec`'s default); references are
rewritten relative to the naming file."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mixseek.config.loader import read_toml
from mixseek.config.os_strings import escaped, not_utf8
from mixseek.errors import InputError
from mixseek.migrate.fields import Where
from mixseek.migrate.members import convert_member
from mixseek.migrate.report import Report
from mixseek.migrate.settings import (
    convert_evaluator,
    convert_judgment,
    convert_orchestrator,
    convert_prompt_builder,
)
from mixseek.migrate.source import LegacyWorkspace
from mixseek.migrate.teams import convert_team

MAIN_ORCHESTRATOR = "configs/orchestrator.toml"
DEFAULT_EVALUATOR = "configs/evaluator.toml"
DEFAULT_JUDGMENT = "configs/judgment.toml"
DEFAULT_PROMPT_BUILDER = "configs/prompt_builder.toml"
LEGACY_DEFAULTS = "mixseek-core defaults"

_EVALUATOR_KEYS = {"metrics", "default_model", "llm_default", "custom_metrics", "evaluator"}
_JUDGMENT_KEYS = {"judge_on_final_round", "judgment"}


@dataclass(frozen=True)
class OutputFile:
    """One file to write: its path under the new workspace, its data, and what it came from."""

    path: str
    data: dict[str, Any]
    source: str


@dataclass
class ConfigPlan:
    files: dict[str, OutputFile] = field(default_factory=dict)


def _kind(data: Mapping[str, Any]) -> str | None:
    for section in ("orchestrator", "team", "agent", "prompt_builder"):
        if isinstance(data.get(section), Mapping):
            return section
    if _EVALUATOR_KEYS & set(data):
        return "evaluator"
    if _JUDGMENT_KEYS & set(data):
        return "judgment"
    return None


def _team_count(data: Mapping[str, Any]) -> int:
    teams = data.get("orchestrator", {}).get("teams")
    return len(teams) if isinstance(teams, list) else 0


class _Planner:
    def __init__(self, legacy: LegacyWorkspace, report: Report) -> None:
        self.legacy = legacy
        self.report = report
        files = [p for p in legacy.toml_files() if self.utf8_name(p, Where(legacy.label(p)), None)]
        self.data: dict[Path, dict[str, Any]] = {p: read_toml(p) for p in files}
        self.kinds: dict[Path, str | None] = {p: _kind(d) for p, d in self.data.items()}
        self.dest: dict[Path, str] = {}
        self.plan = ConfigPlan()
        self.converted: set[tuple[Path, str]] = set()

    # -- paths ------------------------------------------------------------------------------

    def dest_of(self, path: Path) -> str:
        if path not in self.dest:
            label = self.legacy.label(path)
            if label == str(path):  # outside the source workspace
                label = f"configs/imported/{path.name}"
                self.report.change(str(path), None, f"outside the workspace: written to {label}")
            taken = set(self.dest.values())
            stem, suffix = posixpath.splitext(label)
            n = 2
            while label in taken or label == MAIN_ORCHESTRATOR:
                label, n = f"{stem}-{n}{suffix}", n + 1
            self.dest[path] = label
        return self.dest[path]

    def relative(self, target: str, referrer: str) -> str:
        return posixpath.relpath(target, posixpath.dirname(referrer))

    def utf8_name(self, path: Path, where: Where, key: str | None) -> bool:
        """Whether `path`'s name is UTF-8 (reported if not): the new files name each other in UTF-8."""
        if not_utf8(str(path)) is None:
            return True
        if key is None:  # found under configs/: `where` names it
            self.report.drop(escaped(where.file), None, "file name is not UTF-8: not carried over")
        else:
            self.report.drop(where.file, where.key(key), f"file name is not UTF-8: {escaped(str(path))}")
        return False

    def load(self, path: Path, where: Where, key: str, kind: str) -> bool:
        """Whether `path` (named at `where.key(key)`) is a readable file of `kind`; reported if not."""
        if not path.is_file():
            self.report.drop(where.file, where.key(key), f"file not found: {path}")
            return False
        if not self.utf8_name(path, where, key):  # a link to one
            return False
        if path not in self.data:
            self.data[path] = read_toml(path)
            self.kinds[path] = _kind(self.data[path])
        found = self.kinds[path]
        if kind in ("evaluator", "judgment") and found is None:
            self.kinds[path] = found = kind  # named as such; an empty file means all defaults
        if found != kind:
            self.report.drop(where.file, where.key(key), f"{self.legacy.label(path)} is not a {kind} file")
            return False
        return True

    def add(self, path: str, data: dict[str, Any], source: str) -> None:
        self.plan.files[path] = OutputFile(path, data, source)

    # -- conversion -------------------------------------------------------------------------

    def convert(self, path: Path) -> None:
        kind = self.kinds[path]
        if kind is None or (path, kind) in self.converted:
            return
        self.converted.add((path, kind))
        label, data = self.legacy.label(path), self.data[path]
        where = Where(label)
        converters: dict[str, Callable[[], dict[str, Any]]] = {
            "agent": lambda: self.member_file(data, where),
            "team": lambda: convert_team(data, where, self.report, self.member_reference(path)),
            "evaluator": lambda: convert_evaluator(data, where, self.report),
            "judgment": lambda: convert_judgment(data, where, self.report),
            "prompt_builder": lambda: convert_prompt_builder(data, where, self.report),
        }
        if kind in converters:
            self.add(self.dest_of(path), converters[kind](), label)

    def member_file(self, data: Mapping[str, Any], where: Where) -> dict[str, Any]:
        for key in sorted(set(data) - {"agent"}):
            self.report.drop(where.file, key, "unknown top-level key")
        return {"member": convert_member(data["agent"], Where(where.file, "agent"), self.report)}

    def member_reference(self, team: Path) -> Callable[[str, Where], str | None]:
        def resolve(ref: str, where: Where) -> str | None:
            path = self.legacy.resolve(ref)
            if not self.load(path, where, "config", "agent"):
                return None
            self.convert(path)
            return self.relative(self.dest_of(path), self.dest_of(team))

        return resolve

    def orchestrator(self, path: Path, dest: str) -> None:
        label, data = self.legacy.label(path), self.data[path]
        body = data.get("orchestrator", {})
        where = Where(label, "orchestrator")

        def team_path(ref: str, at: Where) -> str | None:
            team = self.legacy.resolve(ref)
            if not self.load(team, at, "config", "team"):
                return None
            self.convert(team)
            return self.relative(self.dest_of(team), dest)

        evaluator = self.settings_file(body, where, "evaluator", DEFAULT_EVALUATOR, convert_evaluator, dest)
        judgment = self.settings_file(body, where, "judgment", DEFAULT_JUDGMENT, convert_judgment, dest)
        converted = convert_orchestrator(
            data,
            Where(label),
            self.report,
            team_path=team_path,
            evaluator_path=evaluator,
            judgment_path=judgment,
        )
        self.add(dest, converted, label)

    def settings_file(
        self,
        body: Mapping[str, Any],
        where: Where,
        kind: str,
        default: str,
        convert: Callable[[Mapping[str, Any], Where, Report], dict[str, Any]],
        referrer: str,
    ) -> str | None:
        """The orchestrator's `<kind>_config` for the new file (None: the default path)."""
        ref = body.get(f"{kind}_config")
        key = f"{kind}_config"
        target: str | None = None
        if isinstance(ref, str):
            path = self.legacy.resolve(ref)
            if self.load(path, where, key, kind):
                self.convert(path)
                target = self.dest_of(path)
        if target is None:
            path = self.legacy.resolve(default)
            if path.is_file() and self.load(path, where, key, kind):
                self.convert(path)
                target = self.dest_of(path)
            else:
                target = default
                if default not in self.plan.files:
                    self.add(default, convert({}, Where(LEGACY_DEFAULTS), self.report), LEGACY_DEFAULTS)
        value = self.relative(target, referrer)
        return None if value == posixpath.basename(default) else value


def _main_orchestrator(planner: _Planner, orchestrators: list[Path], chosen: Path | None) -> Path | None:
    if chosen is not None:
        resolved = chosen.expanduser()
        resolved = (resolved if resolved.is_absolute() else planner.legacy.root / resolved).resolve()
        if resolved not in orchestrators:
            raise InputError(
                f"--orchestrator: {resolved} is not an orchestrator file of {planner.legacy.root}"
            )
        return resolved
    default = planner.legacy.resolve(MAIN_ORCHESTRATOR)
    if default in orchestrators:
        return default
    if not orchestrators:
        return None
    return max(orchestrators, key=lambda p: (_team_count(planner.data[p]), -orchestrators.index(p)))


def plan_configs(legacy: LegacyWorkspace, report: Report, *, main: Path | None = None) -> ConfigPlan:
    """Convert every config of `legacy` in memory; nothing is written."""
    planner = _Planner(legacy, report)
    orchestrators = [p for p, kind in planner.kinds.items() if kind == "orchestrator"]
    primary = _main_orchestrator(planner, orchestrators, main)
    if primary is not None:
        planner.dest[primary] = MAIN_ORCHESTRATOR
        if len(orchestrators) > 1 or legacy.label(primary) != MAIN_ORCHESTRATOR:
            report.change(
                legacy.label(primary),
                None,
                f"written as {MAIN_ORCHESTRATOR} (what 'mixseek exec' runs); other orchestrator files keep "
                "their names (run them with 'mixseek exec --config FILE')",
            )
    for path in orchestrators:
        planner.orchestrator(path, planner.dest_of(path))
    prompt_builder = _prompt_builder(planner, primary)
    for path in orchestrators:
        ref = planner.data[path]["orchestrator"].get("prompt_builder_config")
        if path != primary and isinstance(ref, str) and legacy.resolve(ref) != prompt_builder:
            report.drop(
                legacy.label(path),
                "orchestrator.prompt_builder_config",
                f"not used: only {DEFAULT_PROMPT_BUILDER} holds the templates (the main orchestrator's)",
            )
    for path, kind in list(planner.kinds.items()):
        if kind == "prompt_builder" and path != prompt_builder:
            report.drop(
                legacy.label(path), None, f"not used: only {DEFAULT_PROMPT_BUILDER} holds the templates"
            )
        elif kind is None:
            report.drop(legacy.label(path), None, "not a mixseek-core config this migration knows")
        elif kind != "prompt_builder":
            planner.convert(path)
    if prompt_builder is not None:
        planner.dest[prompt_builder] = DEFAULT_PROMPT_BUILDER
        planner.convert(prompt_builder)
    if primary is None:
        _synthesise_orchestrator(planner)
    return planner.plan


def _prompt_builder(planner: _Planner, primary: Path | None) -> Path | None:
    """The file that becomes `configs/prompt_builder.toml` (the only one this mixseek reads)."""
    legacy = planner.legacy
    ref = planner.data[primary].get("orchestrator", {}).get("prompt_builder_config") if primary else None
    if isinstance(ref, str):
        path = legacy.resolve(ref)
        where = Where(legacy.label(primary) if primary else "", "orchestrator")
        if planner.load(path, where, "prompt_builder_config", "prompt_builder"):
            return path
    default = legacy.resolve(DEFAULT_PROMPT_BUILDER)
    return default if planner.kinds.get(default) == "prompt_builder" else None


def _synthesise_orchestrator(planner: _Planner) -> None:
    """Without an orchestrator file, one that runs every team file (as `mixseek team` users had)."""
    teams = sorted(p for p, kind in planner.kinds.items() if kind == "team")
    if not teams:
        return
    legacy = planner.legacy
    data = {"orchestrator": {"teams": [{"config": legacy.label(p)} for p in teams]}}
    planner.data[legacy.root / MAIN_ORCHESTRATOR] = data
    planner.report.change(
        MAIN_ORCHESTRATOR, None, "written to run every team file (the source has no orchestrator file)"
    )
    planner.orchestrator(legacy.root / MAIN_ORCHESTRATOR, MAIN_ORCHESTRATOR)
