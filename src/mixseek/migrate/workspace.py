"""`mixseek migrate SRC -w DEST`: all read and converted before anything is written (a damaged source leaves
DEST unchanged); history imported one execution per transaction, skipping those there, so reruns are safe."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from mixseek.config.bundle import collect_execution_config
from mixseek.config.os_strings import escaped
from mixseek.config.workspace import Workspace
from mixseek.errors import ConfigError, InputError
from mixseek.migrate.configs import MAIN_ORCHESTRATOR, ConfigPlan, OutputFile, plan_configs
from mixseek.migrate.history import LegacyHistory, read_history
from mixseek.migrate.report import Report
from mixseek.migrate.source import LegacyWorkspace, open_source
from mixseek.orchestrator.execution_ids import EXECUTION_ID_RULE, is_valid_execution_id
from mixseek.storage.import_history import ImportOutcome, import_executions


@dataclass
class MigrationResult:
    source: LegacyWorkspace
    written: list[OutputFile] = field(default_factory=list)
    history: LegacyHistory | None = None
    imported: ImportOutcome | None = None
    report: Report = field(default_factory=Report)
    problems: list[str] = field(default_factory=list)
    """What still keeps the new workspace from loading (as `config validate` words it)."""


def render(file: OutputFile, source_root: Path) -> str:
    """A new file's TOML text, headed by a one-line comment naming its source, whatever its name holds."""
    origin = file.source if file.source.startswith("mixseek-core") else f"{source_root}/{file.source}"
    header = f"# Converted by `mixseek migrate` from {escaped(origin)}\n\n"
    return header + tomli_w.dumps(file.data, multiline_strings=True)


def _refuse_overwrite(dest: Workspace, plan: ConfigPlan) -> None:
    existing = sorted(dest.root / path for path in plan.files if (dest.root / path).exists())
    if existing:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise InputError(
            f"{existing[0]}: already exists{more}; pass --force to overwrite (nothing was written)"
        )


def _check_execution_ids(db: Path, history: LegacyHistory) -> None:
    """Every execution to import has an id `exec --execution-id` would take (it names files and URLs)."""
    for execution in history.executions:
        if not is_valid_execution_id(execution.execution_id):
            raise InputError(
                f"{db}: execution id {execution.execution_id!r}: {EXECUTION_ID_RULE} (nothing was written)"
            )


def _verify(dest: Workspace, plan: ConfigPlan) -> list[str]:
    """Problems of every migrated orchestrator file, loaded as `mixseek config validate` loads it."""
    problems: list[str] = []
    orchestrators = [f.path for f in plan.files.values() if "orchestrator" in f.data]
    for path in sorted(orchestrators, key=lambda p: (p != MAIN_ORCHESTRATOR, p)):
        _, found = collect_execution_config(dest, dest.root / path)
        for problem in found.errors:
            parts = problem.all_problems() if isinstance(problem, ConfigError) else [problem]
            for part in parts:
                if str(part) not in problems:
                    problems.append(str(part))
    return problems


def migrate_workspace(
    src: Path, dest: Workspace, *, force: bool = False, main: Path | None = None
) -> MigrationResult:
    """Convert the mixseek-core workspace at `src` into `dest` (see the module docstring)."""
    legacy = open_source(src)
    if dest.root.resolve() == legacy.root:
        raise InputError(f"{dest.root}: the new workspace must be another directory than the source")
    result = MigrationResult(legacy)
    plan = plan_configs(legacy, result.report, main=main) if legacy.configs.is_dir() else ConfigPlan()
    if legacy.db_path.exists():
        result.history = read_history(legacy.db_path, result.report)
        _check_execution_ids(legacy.db_path, result.history)
    if not force:
        _refuse_overwrite(dest, plan)
    for file in plan.files.values():
        target = dest.root / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(file, legacy.root), encoding="utf-8")
        result.written.append(file)
    dest.logs.mkdir(parents=True, exist_ok=True)
    if result.history is not None:
        result.imported = import_executions(dest.db_path, result.history.executions)
    if any("orchestrator" in f.data for f in plan.files.values()):
        result.problems = _verify(dest, plan)
    return result
