"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", help="Workspace directory (default: $MIXSEEK_WORKSPACE).", show_default=False
    ),
]
OrchestratorOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="orchestrator.toml (default: WORKSPACE/configs/orchestrator.toml)."),
]
OutputFormatOption = Annotated[str, typer.Option("--output-format", "-f", help="text or json.")]
