"""`mixseek init`: a complete, runnable sample workspace."""

from __future__ import annotations

from typing import Annotated

import typer

from mixseek.cli.console import stdout_console
from mixseek.cli.errors import cli_errors
from mixseek.cli.options import WorkspaceOption
from mixseek.config.scaffold import DEFAULT_SAMPLE_MODEL, PROMPT_FILE, check_language, write_workspace
from mixseek.config.workspace import resolve_workspace


@cli_errors
def init_command(
    workspace: WorkspaceOption = None,
    model: Annotated[
        str,
        typer.Option("--model", "-m", help="Model for every role (leader, members, evaluator, judgment)."),
    ] = DEFAULT_SAMPLE_MODEL,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing config files.")] = False,
    language: Annotated[
        str,
        typer.Option(
            "--language",
            "-l",
            help="Language of the sample's instructions, templates and task: ja (default) or en.",
        ),
    ] = "ja",
) -> None:
    """Create a workspace with two sample teams, an evaluator, a judgment model and prompt templates."""
    ws = resolve_workspace(workspace, must_exist=False)
    written = write_workspace(ws.root, model, force=force, language=check_language(language))
    out = stdout_console()
    out.print(f"Initialized workspace {ws.root} (model: {model}, language: {language})")
    for path in written:
        out.print(f"  wrote {path.relative_to(ws.root)}")
    out.print(f"run the sample task: mixseek exec --prompt-file {ws.root / PROMPT_FILE} -w {ws.root}")
