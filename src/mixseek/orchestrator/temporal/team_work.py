"""The activity a `mixseek worker` serves: one team round, run by the local engine's `RoundController`. It
returns the store writes it recorded with its result; every model request asks the execution's governor
service (in the `mixseek exec` process) first, so budgets and rate limits hold across workers."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from mixseek.config.bundle import ExecutionConfig
from mixseek.llm.governor import CallScope, GovernorUnreachable
from mixseek.orchestrator.components import Components, build_components
from mixseek.orchestrator.temporal.governor_client import GovernorClient
from mixseek.orchestrator.temporal.heartbeat import heartbeating
from mixseek.orchestrator.temporal.messages import (
    GOVERNOR_UNREACHABLE,
    GovernorAccess,
    RecordingStore,
    RoundWrites,
    TeamRoundInput,
    TeamRoundResult,
    as_model_calls,
)
from mixseek.orchestrator.temporal.rankings import Rankings

EXECUTIONS_KEPT = 8


@dataclass
class _Execution:
    """A worker's models and ledger for one execution, and its link to that execution's governor."""

    parts: Components
    governor: GovernorClient


class TeamWork:
    def __init__(self, config: ExecutionConfig, config_hash: str) -> None:
        self.config = config
        self.config_hash = config_hash
        # one set of models and ledger per execution, as the local engine has
        self._executions: OrderedDict[str, _Execution] = OrderedDict()
        # built before the first execution comes: it takes most of a second of CPU
        self._ready: Components | None = build_components(config)
        # each round's ranking, asked of the workflow once per round by this worker (not per team)
        self._rankings = Rankings()

    async def _components(self, execution_id: str, access: GovernorAccess) -> Components:
        known = self._executions.get(execution_id)
        if known is None:
            parts, self._ready = self._ready or build_components(self.config), None
            known = _Execution(parts, GovernorClient(access))
            self._executions[execution_id] = known
            while len(self._executions) > EXECUTIONS_KEPT:
                await self._executions.popitem(last=False)[1].governor.aclose()
        elif known.governor.access != access:
            # a resumed `mixseek exec` serves the execution's governor at another address
            await known.governor.aclose()
            known.governor = GovernorClient(access)
        self._executions.move_to_end(execution_id)
        known.parts.governor.authority = known.governor
        return known.parts

    def _check(self, config_hash: str) -> None:
        if config_hash != self.config_hash:
            raise ApplicationError(
                f"worker: workspace config hash {self.config_hash[:16]} differs from the execution's "
                f"{config_hash[:16]}",
                type="ConfigMismatch",
                non_retryable=True,
            )

    @activity.defn(name="team_round")
    async def team_round(self, work: TeamRoundInput) -> TeamRoundResult:
        self._check(work.config_hash)
        parts = await self._components(work.execution_id, work.governor)
        store = RecordingStore()
        controller = parts.controller(
            self.config, store, work.execution_id, work.user_prompt, work.team_id, work.reference
        )
        async with heartbeating():
            ranking = await self._rankings.get(work.execution_id, work.round_number)
            snapshot = work.snapshot.model_copy(update={"ranking": ranking})
            try:
                outcome = await controller.run_team_round(work.round_number, snapshot=snapshot)
            except GovernorUnreachable as exc:
                raise _unreachable(parts, CallScope(work.team_id, work.round_number), exc) from None
        left = parts.governor.ledger.take_unsaved_rows(CallScope(work.team_id, work.round_number))
        writes = RoundWrites(writes=store.writes, unsaved_calls=as_model_calls(left))
        return TeamRoundResult(outcome=outcome, writes=writes.pack())

    def activities(self) -> list[Callable[..., Any]]:
        return [self.team_round]


def _unreachable(parts: Components, scope: CallScope, exc: GovernorUnreachable) -> ApplicationError:
    """Retried by Temporal; the attempt's requests are dropped with it, as a dying worker's are."""
    parts.governor.ledger.forget(scope)
    return ApplicationError(f"worker: {exc}", type=GOVERNOR_UNREACHABLE)
