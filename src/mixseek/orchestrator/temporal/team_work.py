"""The activities a `mixseek worker` serves: one team round, one judgment — the local engine's code.

Each runs `RoundController` over components built from the worker's own copy of the workspace
(models, limits and budget included) and returns, with its result, the store writes it recorded.
While it runs it beats to Temporal, so a worker that dies hands its work to another in seconds.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pydantic_ai import RunUsage, UsageLimitExceeded
from temporalio import activity
from temporalio.exceptions import ApplicationError

from mixseek.config.bundle import ExecutionConfig
from mixseek.llm.governor import CallScope
from mixseek.llm.usage import usage_from_dict
from mixseek.orchestrator.components import Components, build_components
from mixseek.orchestrator.temporal.heartbeat import heartbeating
from mixseek.orchestrator.temporal.messages import JudgeInput, JudgeResult, TeamRoundInput, TeamRoundResult
from mixseek.orchestrator.temporal.recording import RecordingStore, as_model_calls
from mixseek.round_controller.controller import RoundController

EXECUTIONS_KEPT = 8


class TeamWork:
    """The worker's activities, over one workspace configuration."""

    def __init__(self, config: ExecutionConfig, config_hash: str) -> None:
        self.config = config
        self.config_hash = config_hash
        # one set of models, limits and ledger per execution, as the local engine has
        self._executions: OrderedDict[str, Components] = OrderedDict()

    def _components(self, execution_id: str, spent: dict[str, object]) -> Components:
        parts = self._executions.get(execution_id)
        if parts is None:
            parts = build_components(self.config)
            self._executions[execution_id] = parts
            while len(self._executions) > EXECUTIONS_KEPT:
                self._executions.popitem(last=False)
        self._executions.move_to_end(execution_id)
        _catch_up(parts, usage_from_dict(spent))
        return parts

    def _check(self, config_hash: str) -> None:
        if config_hash != self.config_hash:
            raise ApplicationError(
                f"worker: workspace config hash {self.config_hash[:16]} differs from the execution's "
                f"{config_hash[:16]}",
                type="ConfigMismatch",
                non_retryable=True,
            )

    def _controller(
        self, parts: Components, store: RecordingStore, execution_id: str, user_prompt: str, team_id: str
    ) -> RoundController:
        return RoundController(
            execution_id=execution_id,
            user_prompt=user_prompt,
            team=parts.teams[team_id],
            store=store,
            prompt_builder=parts.prompt_builder,
            evaluator=parts.evaluator,
            judgment=parts.judgment,
            governor=parts.governor,
            timeout_seconds=self.config.orchestrator.value.timeout_per_team_seconds,
        )

    @activity.defn(name="team_round")
    async def team_round(self, work: TeamRoundInput) -> TeamRoundResult:
        self._check(work.config_hash)
        parts = self._components(work.execution_id, work.spent)
        store = RecordingStore()
        controller = self._controller(parts, store, work.execution_id, work.user_prompt, work.team_id)
        async with heartbeating():
            outcome = await controller.run_team_round(work.round_number, snapshot=work.snapshot)
        left = parts.governor.ledger.take_unsaved_rows(CallScope(work.team_id, work.round_number))
        return TeamRoundResult(outcome=outcome, writes=store.writes, unsaved_calls=as_model_calls(left))

    @activity.defn(name="judge")
    async def judge(self, ask: JudgeInput) -> JudgeResult:
        self._check(ask.config_hash)
        parts = self._components(ask.execution_id, ask.spent)
        store = RecordingStore()
        controller = self._controller(parts, store, ask.execution_id, ask.user_prompt, ask.team_id)
        scope = CallScope(ask.team_id, ask.round_number)
        async with heartbeating():
            try:
                decision = await controller.decide(
                    ask.round_number,
                    min_rounds=ask.min_rounds,
                    max_rounds=ask.max_rounds,
                    snapshot=ask.snapshot,
                )
            except UsageLimitExceeded as exc:
                left = as_model_calls(parts.governor.ledger.take_unsaved_rows(scope))
                return JudgeResult(
                    team_id=ask.team_id,
                    round_number=ask.round_number,
                    budget_error=str(exc),
                    unsaved_calls=left,
                )
            await controller.record_decision(ask.round_number, decision)
        left = as_model_calls(parts.governor.ledger.take_unsaved_rows(scope))
        return JudgeResult(
            team_id=ask.team_id,
            round_number=ask.round_number,
            decision=decision,
            writes=store.writes,
            unsaved_calls=left,
        )

    def activities(self) -> list[Callable[..., Any]]:
        return [self.team_round, self.judge]


def _catch_up(parts: Components, stored: RunUsage) -> None:
    """Count towards the budget what the execution spent elsewhere (other workers, earlier
    processes): the ledger's total becomes at least what the store had when this work began."""
    total = parts.governor.ledger.total
    gap = RunUsage(
        requests=max(0, stored.requests - total.requests),
        input_tokens=max(0, stored.input_tokens - total.input_tokens),
        output_tokens=max(0, stored.output_tokens - total.output_tokens),
    )
    if stored.cost is not None and stored.cost > (total.cost or 0):
        gap.cost = stored.cost - (total.cost or 0)
    parts.governor.ledger.preload(gap)
