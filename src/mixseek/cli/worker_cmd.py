"""`mixseek worker`: serve the team rounds of `--engine temporal` executions wherever the workspace's configs
and credentials are (no database); refused before any work if its configs differ."""

from __future__ import annotations

from typing import Annotated

import typer

from mixseek.cli.console import stderr_console
from mixseek.cli.errors import cli_errors, refuse_problems
from mixseek.cli.options import OrchestratorOption, WorkspaceOption
from mixseek.config.workspace import resolve_workspace


@cli_errors
def worker_command(
    temporal_address: Annotated[
        str, typer.Option("--temporal-address", help="The Temporal server, HOST:PORT.", show_default=False)
    ],
    workspace: WorkspaceOption = None,
    config: OrchestratorOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=1024, metavar="N", help="Team rounds run at once.")
    ] = 8,
    started_for: Annotated[
        str | None,
        # set by the `mixseek exec` that starts its own workers: serve its configuration whatever runs
        typer.Option("--started-for", hidden=True),
    ] = None,
) -> None:
    """Run team rounds for `mixseek exec --engine temporal` (until SIGTERM or Ctrl-C)."""
    from mixseek.config.bundle import load_execution_config
    from mixseek.orchestrator.preflight import reference_problems
    from mixseek.orchestrator.temporal.worker import check_worker, serve

    ws = resolve_workspace(workspace)
    loaded = load_execution_config(ws, config)
    refuse_problems(reference_problems(loaded))
    import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

    config_hash = asyncio.run(check_worker(loaded, temporal_address, started_for))

    def ready(queue: str) -> None:
        line = f"worker: serving {ws.root} on {temporal_address} (task queue {queue}, {concurrency} at once)"
        stderr_console().print(line, markup=False)

    asyncio.run(serve(loaded, temporal_address, config_hash, concurrency, ready))
