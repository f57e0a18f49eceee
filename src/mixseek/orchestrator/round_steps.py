"""The steps of the round protocol that touch the store, done in the process that owns it: the local engine's
for every command but `Play`'s team rounds, the Temporal engine's in its store activities; so the budget
check, the round barrier, the judgments and the usage report are one piece of code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from pydantic_ai import UsageLimitExceeded

from mixseek.agents.concurrency import run_bounded
from mixseek.llm.governor import Governor
from mixseek.orchestrator.events import EventBus, RoundStarted, TeamDecided, UsageUpdated
from mixseek.orchestrator.round_protocol import BudgetCut
from mixseek.round_controller.controller import RoundController
from mixseek.round_controller.models import RoundSnapshot
from mixseek.storage.models import RoundDecision, RoundKey
from mixseek.storage.protocol import Store

Verdict = RoundDecision | BudgetCut
# A decision stored before this process served the execution (a repeated activity), or None.
StoredDecision = Callable[[str, int], Awaitable[RoundDecision | None]]


async def _none_stored(team_id: str, round_number: int) -> RoundDecision | None:
    return None


@dataclass
class RoundSteps:
    """One execution's store-side round steps, with the boards it read and the controllers it built."""

    execution_id: str
    store: Store
    governor: Governor
    events: EventBus
    controller_for: Callable[[str], RoundController]
    min_rounds: int
    max_rounds: int
    stored_decision: StoredDecision = _none_stored
    boards: dict[int, RoundSnapshot] = field(default_factory=dict)
    _controllers: dict[str, RoundController] = field(default_factory=dict)
    _decisions: dict[tuple[str, int], RoundDecision] = field(default_factory=dict)
    _board_read: asyncio.Lock = field(default_factory=asyncio.Lock)

    def controller(self, team_id: str) -> RoundController:
        if team_id not in self._controllers:
            self._controllers[team_id] = self.controller_for(team_id)
        return self._controllers[team_id]

    async def begin(self, round_number: int, teams: Sequence[str]) -> BudgetCut | RoundSnapshot:
        """The budget that stops the execution before the round, or the board the round starts from."""
        exceeded = self.governor.ledger.exceeded(self.governor.budget)
        if exceeded is not None:
            return BudgetCut(str(exceeded))
        self.events.emit(
            RoundStarted(execution_id=self.execution_id, round_number=round_number, teams=list(teams))
        )
        before = await self.snapshot(round_number - 1)
        await self.store.mark_rounds_started(self.execution_id, round_number, list(teams))
        return before

    async def snapshot(self, up_to_round: int) -> RoundSnapshot:
        """The board after `up_to_round`, read once per round and process (the round barrier): the board round
        r's judgments saw is the one round r + 1 starts from."""
        if up_to_round < 1:
            return RoundSnapshot(up_to_round=0)
        async with self._board_read:
            if up_to_round not in self.boards:
                eid = self.execution_id
                histories = await self.store.get_submission_histories(eid, before_round=up_to_round + 1)
                ranking = await self.store.get_leader_board_ranking(eid, max_round=up_to_round)
                self.boards[up_to_round] = RoundSnapshot(
                    up_to_round=up_to_round, histories=histories, ranking=ranking
                )
        return self.boards[up_to_round]

    async def judge(self, round_number: int, teams: Sequence[str], concurrency: int) -> dict[str, Verdict]:
        """Each team's decision, made and stored as `concurrency` allows; all end before the reply."""
        verdicts = await run_bounded([partial(self._judge, t, round_number) for t in teams], concurrency)
        return dict(zip(teams, verdicts, strict=True))

    async def _judge(self, team_id: str, round_number: int) -> Verdict:
        key = (team_id, round_number)
        decision = self._decisions.get(key) or await self.stored_decision(team_id, round_number)
        if decision is not None:
            return decision
        after = await self.snapshot(round_number)
        controller = self.controller(team_id)
        try:
            decision = await controller.decide(
                round_number, min_rounds=self.min_rounds, max_rounds=self.max_rounds, snapshot=after
            )
        except UsageLimitExceeded as exc:
            return BudgetCut(str(exc))
        await controller.record_decision(round_number, decision)
        self._decisions[key] = decision
        self.events.emit(TeamDecided.of(RoundKey(self.execution_id, team_id, round_number), decision))
        return decision

    async def flush_usage(self) -> None:
        await self.store.record_model_calls(self.execution_id, self.governor.ledger.take_unsaved_rows())

    async def report_usage(self, round_number: int) -> None:
        """Tell what the execution has spent, as stored, once a round and its decisions are."""
        await self.flush_usage()
        usage = await self.store.get_usage_totals(self.execution_id)
        self.events.emit(UsageUpdated(execution_id=self.execution_id, round_number=round_number, usage=usage))
