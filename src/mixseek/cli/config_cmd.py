"""`mixseek config init|show|validate`; the config models and checks load inside the commands, since every
`mixseek` command, `--help` too, imports this module."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mixseek.cli.console import print_line, stdout_console
from mixseek.cli.errors import EXIT_FAILURE, cli_errors, report, warn_problems
from mixseek.cli.options import OrchestratorOption, WorkspaceOption
from mixseek.cli.render import check_output_format, print_json
from mixseek.config.scaffold import CONFIG_KINDS, DEFAULT_SAMPLE_MODEL, check_language, write_config_kind
from mixseek.config.workspace import resolve_workspace

if TYPE_CHECKING:
    from pydantic import BaseModel

    from mixseek.config.bundle import ExecutionConfig
    from mixseek.config.loader import Loaded

config_app = typer.Typer(no_args_is_help=True, help="Create, inspect and check config files.")

SECRET_WORDS = ("key", "token", "secret", "password")


@config_app.command("init")
@cli_errors
def config_init(
    workspace: WorkspaceOption = None,
    kind: Annotated[
        str, typer.Option("--kind", "-k", help=f"Which file: {', '.join(CONFIG_KINDS)}.")
    ] = "prompt_builder",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead.")] = None,
    model: Annotated[
        str, typer.Option("--model", "-m", help="Model written into the file.")
    ] = DEFAULT_SAMPLE_MODEL,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    language: Annotated[
        str, typer.Option("--language", "-l", help="Language of its instructions and templates: ja or en.")
    ] = "ja",
) -> None:
    """Write a sample config file (prompt_builder.toml by default)."""
    root = resolve_workspace(workspace, must_exist=False).root if output is None else Path.cwd()
    target = write_config_kind(
        root, kind, model, output=output, force=force, language=check_language(language)
    )
    stdout_console().print(f"wrote {target}")


def mask(value: str) -> str:
    """Enough of a secret to recognise it, not to use it."""
    return "****" + value[-4:] if len(value) > 8 else "****"


def _display(name: str, value: Any) -> str:
    from pydantic_core import to_jsonable_python

    value = to_jsonable_python(value)  # models, and models within lists and tables (model_limits)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and any(w in name.lower() for w in SECRET_WORDS):
        return mask(value)
    if "\n" in text.strip():
        lines = text.strip().splitlines()
        return f"{lines[0]} … ({len(lines)} lines)"
    return text


def _rows(loaded: Loaded[Any]) -> list[dict[str, str]]:
    data = loaded.value
    return [
        {"key": name, "value": _display(name, getattr(data, name)), "source": loaded.sources.get(name, "")}
        for name in type(data).model_fields
    ]


UNUSED_BY_WORKFLOW_TEAMS = frozenset({"member_dispatch", "leader", "members"})
"""Team settings a workflow team has no use for: `config show` leaves their defaults out."""


def _file_rows(
    config: BaseModel, path: Path, prefix: str = "", skip: frozenset[str] = frozenset()
) -> list[dict[str, str]]:
    """A team's values, credited to its file only where the file sets them (pydantic's fields_set), a row per
    key of a nested table, so a default leader model shows as `default` beside a leader table."""
    from pydantic import BaseModel

    from mixseek.config.loader import DEFAULT_SOURCE

    rows: list[dict[str, str]] = []
    for name in type(config).model_fields:
        if name in skip:
            continue
        value = getattr(config, name)
        key = f"{prefix}{name}"
        if isinstance(value, BaseModel):
            rows += _file_rows(value, path, f"{key}.")
            continue
        source = str(path) if name in config.model_fields_set else DEFAULT_SOURCE
        rows.append({"key": key, "value": _display(name, value), "source": source})
    return rows


def _credential_rows(config: ExecutionConfig) -> list[dict[str, str]]:
    from mixseek.llm.checks import required_env_var

    rows: dict[str, dict[str, str]] = {}
    for model, role in config.model_roles():
        var = required_env_var(model)
        if var is None or var in rows:
            continue
        value = os.environ.get(var, "")
        rows[var] = {
            "key": var,
            "value": mask(value) if value else "(not set)",
            "source": f"needed by {role}",
        }
    return list(rows.values())


@config_app.command("show")
@cli_errors
def config_show(
    workspace: WorkspaceOption = None,
    config: OrchestratorOption = None,
    output_format: Annotated[str, typer.Option("--output-format", help="text or json.")] = "text",
) -> None:
    """Print the effective settings and where each value came from (secrets masked)."""
    from rich.markup import escape
    from rich.table import Table

    from mixseek.config.bundle import load_execution_config

    check_output_format(output_format)
    ws = resolve_workspace(workspace)
    loaded = load_execution_config(ws, config)
    settings: dict[str, Loaded[Any]] = {
        "orchestrator": loaded.orchestrator,
        "evaluator": loaded.evaluator,
        "judgment": loaded.judgment,
        "prompt_builder": loaded.prompt_builder,
    }
    sections = {title: _rows(section) for title, section in settings.items()}
    files: dict[str, Path | None] = {title: section.file for title, section in settings.items()}
    for entry in loaded.teams:
        skip = UNUSED_BY_WORKFLOW_TEAMS if entry.config.workflow is not None else frozenset()
        sections[f"team {entry.config.team_id}"] = _file_rows(entry.config, entry.path, skip=skip)
        files[f"team {entry.config.team_id}"] = entry.path
    sections["credentials"] = _credential_rows(loaded)
    if output_format == "json":
        print_json({"workspace": str(ws.root), "sections": sections})
        return
    out = stdout_console()
    out.print(f"workspace: {escape(str(ws.root))}")
    for title, rows in sections.items():
        file = files.get(title)
        from_file = file is not None and any(row["source"] == str(file) for row in rows)
        heading = f"{title}: {_shown_path(file, ws.root)}" if file is not None and from_file else title
        table = Table(title=escape(heading), title_justify="left", show_lines=False)
        # keys whole; a long value or variable name wraps rather than the path of every row
        table.add_column("key", no_wrap=True)
        table.add_column("value", overflow="fold")
        table.add_column("source", overflow="fold")
        for row in rows:
            source = "file" if from_file and row["source"] == str(file) else row["source"]
            table.add_row(escape(row["key"]), escape(row["value"]), escape(source))
        out.print(table)


def _shown_path(path: Path, root: Path) -> str:
    """`path` relative to the workspace when it is inside it: the line above the tables names it."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


@config_app.command("validate")
@cli_errors
def config_validate(workspace: WorkspaceOption = None, config: OrchestratorOption = None) -> None:
    """Check every config file of the workspace and report every problem found."""
    from mixseek.config.bundle import collect_execution_config
    from mixseek.orchestrator.preflight import reference_problems

    ws = resolve_workspace(workspace)
    loaded, problems = collect_execution_config(ws, config)
    if loaded is not None:
        problems.errors.extend(reference_problems(loaded))
    for problem in problems.errors:
        report(str(problem))
    if loaded is None or problems.errors:
        print_line(f"{len(problems.errors)} problem(s) found", err=True)
        raise typer.Exit(EXIT_FAILURE)
    warn_problems(loaded.self_judges())
    missing = [row for row in _credential_rows(loaded) if row["value"] == "(not set)"]
    for row in missing:
        print_line(
            f"warning: {row['key']} is not set ({row['source']}); 'mixseek exec' will need it", err=True
        )
    team_ids = ", ".join(e.config.team_id for e in loaded.teams)
    # plain lines: rich, which the tables of `config show` need, would take longer to load than the check
    print_line(f"OK: {ws.root} — {len(loaded.teams)} team(s): {team_ids}")
