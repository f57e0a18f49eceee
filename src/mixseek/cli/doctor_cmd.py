"""`mixseek doctor`: what is installed, and whether a workspace can run, one line per check. Each check reuses
the code other commands run, so its verdict is theirs; nothing is written but a probe file, no secret printed.
The checks load when the command runs."""

from __future__ import annotations

from dataclasses import asdict

import typer

from mixseek.cli.console import stdout_console
from mixseek.cli.errors import EXIT_FAILURE, cli_errors
from mixseek.cli.options import OutputFormatOption, WorkspaceOption
from mixseek.cli.render import check_output_format, print_json


@cli_errors
def doctor_command(workspace: WorkspaceOption = None, output_format: OutputFormatOption = "text") -> None:
    """Check Python, packages, the embedded model, the workspace, its store and credentials."""
    from mixseek.cli.doctor_checks import run_checks

    check_output_format(output_format)
    checks = run_checks(workspace)
    failed = any(c.status == "FAIL" for c in checks)
    if output_format == "json":
        print_json({"ok": not failed, "checks": [asdict(c) for c in checks]})
    else:
        width = max(len(c.name) for c in checks)
        out = stdout_console()
        for c in checks:
            fix = f"; fix: {c.fix}" if c.fix else ""
            out.print(f"{c.status:<4}  {c.name:<{width}}  {c.detail}{fix}", markup=False)
    if failed:
        raise typer.Exit(EXIT_FAILURE)
