"""`mixseek exec --engine local|temporal [--temporal-address HOST:PORT] [--workers N]
[--governor-listen HOST:PORT]`.

Everything about the choice is checked before an execution is created (an unreachable address,
a missing `temporal` CLI: one line, exit 2, nothing started); the local dev server and its
workers start only when the execution does, and stop with it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from mixseek.cli.console import stderr_console
from mixseek.config.workspace import Workspace
from mixseek.errors import InputError

if TYPE_CHECKING:  # the engines load when one starts: every command, `--help` too, imports this
    from mixseek.config.bundle import ExecutionConfig
    from mixseek.orchestrator.engine import Engine

EngineName = Literal["local", "temporal"]
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


@dataclass(frozen=True)
class EnginePlan:
    """The checked choice; `start` brings the engine up for the length of the execution."""

    name: EngineName
    address: str | None = None
    workers: int = 2
    governor_listen: str | None = None
    concurrency: int | None = None  # of each started worker
    config_hash: str | None = None  # what the started workers must serve

    @contextlib.contextmanager
    def start(self, workspace: Workspace) -> Iterator[Engine]:
        from mixseek.orchestrator.engine import LocalEngine, TemporalEngine

        if self.name == "local":
            yield LocalEngine()
            return
        if self.address is not None:
            yield TemporalEngine(self.address, governor_listen=self.governor_listen)
            return
        from mixseek.orchestrator.temporal.cluster import LocalCluster

        with LocalCluster(
            workspace, workers=self.workers, concurrency=self.concurrency, started_for=self.config_hash
        ) as cluster:
            stderr_console().print(
                f"temporal: dev server {cluster.address} (UI {cluster.ui_url}), {self.workers} worker(s)",
                markup=False,
            )
            yield TemporalEngine(cluster.address, governor_listen=self.governor_listen)


def plan_engine(
    config: ExecutionConfig,
    engine: str | None,
    address: str | None,
    workers: int | None,
    governor_listen: str | None = None,
) -> EnginePlan:
    # an address is only for the temporal engine: giving one chooses it
    name = engine or ("temporal" if address is not None else config.orchestrator.value.engine)
    if name not in ("local", "temporal"):
        raise InputError(f"--engine: {name!r}: must be local or temporal")
    if name == "local":
        given = {"--temporal-address": address, "--workers": workers, "--governor-listen": governor_listen}
        for option, value in given.items():
            if value is not None:
                raise InputError(f"{option}: only with --engine temporal")
        return EnginePlan("local")
    try:
        from mixseek.orchestrator.temporal.client import connect
        from mixseek.orchestrator.temporal.cluster import temporal_binary
        from mixseek.orchestrator.temporal.governor_service import check_listen
        from mixseek.orchestrator.temporal.identity import work_hash
    except ImportError:
        raise InputError(
            "--engine temporal: needs the temporal extra (pip install 'mixseek[temporal]')"
        ) from None
    if governor_listen is not None:
        check_listen(governor_listen)
    if address is not None:
        if workers is not None:
            raise InputError("--workers: only without --temporal-address (start `mixseek worker`s there)")
        import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

        asyncio.run(connect(address))
        return EnginePlan("temporal", address=address, governor_listen=governor_listen)
    temporal_binary()
    count = workers if workers is not None else 2
    # the workers together run as many team rounds at once as the local engine would, not 8 each
    concurrency = max(1, math.ceil(config.orchestrator.value.max_concurrent_teams / count))
    return EnginePlan(
        "temporal",
        workers=count,
        governor_listen=governor_listen,
        concurrency=concurrency,
        config_hash=work_hash(config),
    )
