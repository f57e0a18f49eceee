"""`mixseek migrate SRC -w DEST`: bring a mixseek-core workspace, with its history, to this mixseek."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.errors import cli_errors
from mixseek.cli.options import WorkspaceOption
from mixseek.config.os_strings import escaped
from mixseek.config.workspace import Workspace, resolve_workspace

if TYPE_CHECKING:
    from mixseek.migrate.workspace import MigrationResult


def summary_lines(result: MigrationResult, dest: Workspace) -> list[str]:
    """What was written and imported, then what was changed or not carried over, one line each."""
    lines = [f"migrated {result.source.root} into {dest.root}"]
    for f in sorted(result.written, key=lambda f: f.path):
        lines.append(f"  wrote {f.path}" + (f" (from {f.source})" if f.source != f.path else ""))
    if result.history is None:
        lines.append(f"history: no {result.source.db_path.name} in the source")
    elif result.imported is not None:
        imported, present = result.imported.imported, result.imported.already_present
        line = f"history: imported {len(imported)} execution(s) into {dest.db_path}"
        if present:
            line += f"; {len(present)} already there, left as they were"
        lines.append(line)
    changed, dropped = result.report.by_file()
    if changed:
        lines += ["changed (file: key: how):", *(f"  {note.line()}" for note in changed)]
    if dropped:
        lines += ["not carried over (file: key: why):", *(f"  {note.line()}" for note in dropped)]
    if result.problems:
        lines += ["to fix before running (as 'mixseek config validate' reports them):"]
        lines += [f"  {problem}" for problem in result.problems]
    return lines


@cli_errors
def migrate_command(
    source: Annotated[
        Path, typer.Argument(metavar="SRC", help="The mixseek-core workspace to convert (only read).")
    ],
    workspace: WorkspaceOption = None,
    orchestrator: Annotated[
        Path | None,
        typer.Option(
            "--orchestrator",
            help="The source orchestrator file that becomes configs/orchestrator.toml "
            "(default: configs/orchestrator.toml, else the one with the most teams).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite config files that exist in DEST.")
    ] = False,
) -> None:
    """Convert a mixseek-core workspace's configs into -w DEST and import its mixseek.db history."""
    # loaded only when migrating: keeps the start of every other command fast
    from mixseek.migrate.workspace import migrate_workspace

    dest = resolve_workspace(workspace, must_exist=False)
    result = migrate_workspace(source, dest, force=force, main=orchestrator)
    # each on one line whatever a source file's name holds (a line break, a control character)
    typer.echo("\n".join(escaped(line) for line in summary_lines(result, dest)))
