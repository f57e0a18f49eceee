"""`mixseek exec`'s engine options; `mixseek.orchestrator.engine` checks and starts the choice."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

EngineOption = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="local (this process) or temporal (a workflow; team rounds on workers). "
        "Default: temporal with --temporal-address, else the orchestrator.engine key, else local.",
        show_default=False,
    ),
]
TemporalAddressOption = Annotated[
    str | None,
    typer.Option(
        "--temporal-address",
        help="A Temporal server (HOST:PORT) with `mixseek worker`s; without it a local dev server "
        "and --workers workers are started.",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", min=1, max=256, metavar="N",
        help="Worker processes to start with the local dev server (default 2).", show_default=False,
    ),
]  # fmt: skip
GovernorListenOption = Annotated[
    str | None,
    typer.Option(
        "--governor-listen",
        help="Where this process serves the execution's budgets and rate limits to every worker "
        "(HOST:PORT; default 127.0.0.1 on a free port). Give an address workers on other machines "
        "reach, e.g. 0.0.0.0:7300.",
        show_default=False,
    ),
]


def this_program() -> list[str]:
    """The program that runs `exec`, which runs its workers too (a wrapper script included)."""
    program = Path(sys.argv[0])
    if program.is_file() and program.name != "__main__.py":
        return [sys.executable, str(program)]
    return [sys.executable, "-m", "mixseek.cli"]
