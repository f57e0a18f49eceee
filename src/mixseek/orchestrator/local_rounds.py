"""The local engine's driver of the round protocol: every command done in this process."""

from __future__ import annotations

import contextlib
from functools import partial
from types import TracebackType
from typing import Any

import mixseek.telemetry as telemetry
from mixseek.agents.concurrency import run_bounded
from mixseek.orchestrator.events import TeamRoundFinished, TeamRoundStarted
from mixseek.orchestrator.round_protocol import Begin, BudgetCut, Close, Command, Enter, Judge, Play
from mixseek.orchestrator.round_steps import RoundSteps
from mixseek.round_controller.models import RoundOutcome, RoundSnapshot


class LocalRounds:
    """Performs the protocol's commands with `steps`, each round in its own span."""

    def __init__(self, steps: RoundSteps) -> None:
        self.steps = steps
        self._before = RoundSnapshot(up_to_round=0)
        self._span = contextlib.ExitStack()

    async def perform(self, command: Command) -> Any:
        steps = self.steps
        match command:
            case Enter(round_number=r, teams=teams):
                eid = steps.execution_id
                self._round_span = self._span.enter_context(
                    telemetry.span("mixseek.round", execution_id=eid, round=r, teams=len(teams))
                )
                return None
            case Begin(round_number=r, teams=teams):
                begun = await steps.begin(r, teams)
                if isinstance(begun, BudgetCut):
                    return begun
                self._before = begun
                return None
            case Play(round_number=r, teams=teams, concurrency=n):
                outcomes = await run_bounded([partial(self._play, t, r) for t in teams], n)
                await steps.flush_usage()
                return outcomes
            case Judge(round_number=r, teams=teams, concurrency=n):
                return await steps.judge(r, teams, n)
            case Close(round_number=r, stop=stop):
                await steps.report_usage(r)
                telemetry.record(self._round_span, stop_reason=stop[0])
                self._span.close()
                return None

    async def _play(self, team_id: str, round_number: int) -> RoundOutcome:
        eid = self.steps.execution_id
        self.steps.events.emit(TeamRoundStarted(execution_id=eid, team_id=team_id, round_number=round_number))
        outcome = await self.steps.controller(team_id).run_team_round(round_number, snapshot=self._before)
        self.steps.events.emit(TeamRoundFinished.of(outcome))
        return outcome

    def __enter__(self) -> LocalRounds:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        """A round cut short ends its span with the error that cut it."""
        self._span.__exit__(kind, error, tb)
