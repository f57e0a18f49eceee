"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import mixseek.version

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", help="Workspace directory (default: $MIXSEEK_WORKSPACE).", show_default=False
    ),
]
OrchestratorOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="orchestrator.toml (default: the one in WORKSPACE/configs)."),
]
OutputFormatOption = Annotated[str, typer.Option("--output-format", "-f", help="text or json.")]


def package_version() -> str:
    """The installed distribution's version (the source tree's when it is not installed)."""
    from importlib import metadata  # 20 ms with what it imports: only `--version` needs it

    try:
        return metadata.version("mixseek")
    except metadata.PackageNotFoundError:
        return mixseek.version.__version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mixseek {package_version()}")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
]


PromptFileOption = Annotated[
    str | None,
    typer.Option(
        "--prompt-file",
        help="Read PROMPT from this UTF-8 file ('-' for standard input), e.g. when it is too long "
        "for the command line.",
        show_default=False,
    ),
]
SubmissionFileOption = Annotated[
    str | None,
    typer.Option(
        "--submission-file",
        help="Read SUBMISSION from this UTF-8 file ('-' for standard input).",
        show_default=False,
    ),
]
