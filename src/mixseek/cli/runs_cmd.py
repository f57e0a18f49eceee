"""`mixseek runs list|show|export`: stored executions read through `mixseek.runs` (read-only), printed as JSON
or laid out; what a command reads and lays out loads inside it (`--help` imports this module)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.errors import cli_errors
from mixseek.cli.options import OutputFormatOption, WorkspaceOption
from mixseek.cli.render import check_new_output, check_output_format, json_text, print_json, write_output
from mixseek.config.workspace import resolve_workspace
from mixseek.errors import InputError
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from mixseek.storage.overview import ExecutionOverview
    from mixseek.storage.views import ExecutionView

runs_app = typer.Typer(no_args_is_help=True, help="List, inspect and export stored executions.")

EXPORT_FORMATS = ("json", "markdown", "html")


def resume_command(execution_id: str, workspace: Path | None) -> str:
    return f"mixseek exec --resume {execution_id} -w {resolve_workspace(workspace).root}"


def resume_hints(entries: list[ExecutionOverview], workspace: Path | None) -> list[str]:
    """How to go on with the interrupted executions of a listing (a killed one among them)."""
    interrupted = [e.execution_id for e in entries if e.status == "interrupted"]
    if not interrupted:
        return []
    return ["", "interrupted, resume with:", *(f"  {resume_command(e, workspace)}" for e in interrupted)]


def _view(command: str, workspace: Path | None, execution_id: str) -> ExecutionView:
    from mixseek.runs import UnknownExecution, read_execution

    try:
        return read_execution(resolve_workspace(workspace).root, execution_id)
    except UnknownExecution as exc:
        raise InputError(f"runs {command}: {exc}") from None


def _echo(lines: list[str]) -> None:
    # stored model text may hold escape sequences; they must not reach the terminal
    typer.echo(strip_controls("\n".join(lines)))


@runs_app.command("list")
@cli_errors
def runs_list(
    workspace: WorkspaceOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, metavar="N", help="Show at most N executions.")
    ] = 20,
    output_format: OutputFormatOption = "text",
) -> None:
    """Executions, newest first: status, best team and score, rounds, tokens."""
    from mixseek.runs import list_executions

    check_output_format(output_format)
    ws = resolve_workspace(workspace)
    entries = list_executions(ws.root, limit=limit) if ws.db_path.exists() else []
    if output_format == "json":
        print_json([e.model_dump(mode="json") for e in entries])
    elif not entries:
        typer.echo(f"no executions yet in {ws.root} (run 'mixseek exec')")
    else:
        from mixseek.cli.text_layout import list_lines

        _echo([*list_lines(entries), *resume_hints(entries, workspace)])


@runs_app.command("show")
@cli_errors
def runs_show(
    execution_id: Annotated[
        str, typer.Argument(metavar="EXECUTION_ID", help="The execution id (see 'mixseek runs list').")
    ],
    workspace: WorkspaceOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """One execution: leaderboard, every team's rounds with scores and judgments, the winner, usage."""
    check_output_format(output_format)
    view = _view("show", workspace, execution_id)
    if output_format == "json":
        print_json(view.document(details=False))
    else:
        from mixseek.cli.runs_text import show_lines

        lines = show_lines(view)
        if view.status == "interrupted":
            lines.insert(1, f"resume with: {resume_command(execution_id, workspace)}")
        _echo(lines)


def _export_text(view: ExecutionView, export_format: str) -> str:
    if export_format == "json":
        return json_text(view.document()) + "\n"
    if export_format == "html":
        from mixseek.report.html import render_html_report

        return render_html_report(view)
    from mixseek.cli.runs_export import markdown_report

    return markdown_report(view)


@runs_app.command("export")
@cli_errors
def runs_export(
    execution_id: Annotated[
        str, typer.Argument(metavar="EXECUTION_ID", help="The execution id (see 'mixseek runs list').")
    ],
    export_format: Annotated[
        str | None,
        typer.Option(
            "--format", help="json, markdown or html (one self-contained page).", show_default=False
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write to FILE instead of stdout.", show_default=False),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Everything about one execution, as JSON (every submission), a Markdown report, or one
    self-contained HTML page (charts inline, no scripts) to attach to an e-mail or a pull request."""
    if export_format not in EXPORT_FORMATS:
        got = f" (got '{export_format}')" if export_format is not None else ""
        raise InputError(f"--format: must be 'json', 'markdown' or 'html'{got}")
    check_new_output(output, force)
    view = _view("export", workspace, execution_id)
    text = _export_text(view, export_format)
    if output is None:
        typer.echo(text, nl=False)
        return
    write_output(output, text, force)
    typer.echo(f"wrote {output} ({export_format}, execution {execution_id})")
