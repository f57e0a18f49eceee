"""Which engine runs an execution: `local` (this process, asyncio) or `temporal` (a workflow).

`Mixseek.iter` asks its engine for the orchestrator; the temporal one is imported only when
chosen, so `local` needs nothing of the `mixseek[temporal]` extra.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from mixseek.config.bundle import ExecutionConfig
from mixseek.orchestrator.events import EventSink
from mixseek.orchestrator.orchestrator import Orchestrator


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
