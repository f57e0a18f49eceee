"""Which engine runs an execution: `local` (this process) or `temporal` (a workflow), checked by `plan_engine`
and brought up by `EnginePlan.start`; the temporal modules load only when chosen."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from mixseek.config.bundle import ExecutionConfig, load_execution_config
from mixseek.errors import InputError, MixseekError
from mixseek.orchestrator.events import EventSink
from mixseek.orchestrator.orchestrator import Orchestrator

EngineName = Literal["local", "temporal"]


class Engine(Protocol):
    def orchestrator(self, config: ExecutionConfig, sinks: Iterable[EventSink]) -> Orchestrator: ...


class LocalEngine:
    """Every team round in this process: the default."""

    def orchestrator(self, config: ExecutionConfig, sinks: Iterable[EventSink]) -> Orchestrator:
        return Orchestrator(config, sinks=sinks)


@dataclass(frozen=True)
class TemporalEngine:
    """The execution as a workflow on the Temporal server at `address`, team rounds on its workers."""

    address: str
    governor_listen: str | None = None  # where workers ask for budgets and rate limits (HOST:PORT)

    def orchestrator(self, config: ExecutionConfig, sinks: Iterable[EventSink]) -> Orchestrator:
        from mixseek.orchestrator.temporal.client import TemporalOrchestrator

        return TemporalOrchestrator(
            config, address=self.address, sinks=sinks, governor_listen=self.governor_listen
        )


@dataclass(frozen=True)
class EnginePlan:
    name: EngineName
    address: str | None = None
    workers: int = 2
    governor_listen: str | None = None
    concurrency: int = 1  # of each started worker
    config_hash: str = ""  # what the started workers must serve

    @contextlib.contextmanager
    def start(
        self, config: ExecutionConfig, say: Callable[[str], None], program: Sequence[str]
    ) -> Iterator[Engine]:
        """The engine, up until the block ends; `program` is the `mixseek` its started workers run."""
        if self.name == "local":
            yield LocalEngine()
            return
        if self.address is not None:
            yield TemporalEngine(self.address, governor_listen=self.governor_listen)
            return
        from mixseek.orchestrator.temporal.cluster import local_cluster

        worker = [*program, "worker", "-w", str(config.workspace.root), "-c", str(config.orchestrator.file),
                  "--concurrency", str(self.concurrency), "--started-for", self.config_hash]  # fmt: skip
        with local_cluster(config.workspace, self.workers, worker) as (address, ui_url):
            say(f"temporal: dev server {address} (UI {ui_url}), {self.workers} worker(s)")
            yield TemporalEngine(address, governor_listen=self.governor_listen)


def plan_engine(
    config: ExecutionConfig, engine: str | None, address: str | None, workers: int | None, listen: str | None
) -> EnginePlan:
    """`exec --engine/--temporal-address/--workers/--governor-listen` checked, nothing started."""
    # an address is only for the temporal engine: giving one chooses it
    name = engine or ("temporal" if address is not None else config.orchestrator.value.engine)
    if name not in ("local", "temporal"):
        raise InputError(f"--engine: {name!r}: must be local or temporal")
    if name == "local":
        given = {"--temporal-address": address, "--workers": workers, "--governor-listen": listen}
        for option, value in given.items():
            if value is not None:
                raise InputError(f"{option}: only with --engine temporal")
        return EnginePlan("local")
    try:
        from mixseek.orchestrator.temporal.client import connect
        from mixseek.orchestrator.temporal.cluster import temporal_binary
        from mixseek.orchestrator.temporal.governor_service import check_listen
    except ImportError:
        raise InputError(
            "--engine temporal: needs the temporal extra (pip install 'mixseek[temporal]')"
        ) from None
    if listen is not None:
        check_listen(listen)
    if address is not None:
        if workers is not None:
            raise InputError("--workers: only without --temporal-address (start `mixseek worker`s there)")
        import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

        asyncio.run(connect(address))
        return EnginePlan("temporal", address=address, governor_listen=listen)
    temporal_binary()
    count = workers if workers is not None else 2
    # the workers together run as many team rounds at once as the local engine would, not 8 each
    concurrency = max(1, math.ceil(config.orchestrator.value.max_concurrent_teams / count))
    return EnginePlan("temporal", None, count, listen, concurrency, _served_hash(config))


def _served_hash(config: ExecutionConfig) -> str:
    """The config hash of `config`, which the workers started here load from its workspace's files."""
    from mixseek.orchestrator.temporal.identity import work_hash

    mine = work_hash(config)
    try:
        files = work_hash(load_execution_config(config.workspace, config.orchestrator.file))
    except MixseekError:
        files = None
    if files != mine:
        raise InputError(
            f"--workers: the workers load the config files of {config.workspace.root}, which do not give "
            "this configuration (made in code?); run load_workspace's, or give a Temporal address"
        )
    return mine
