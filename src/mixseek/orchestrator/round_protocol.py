"""The round protocol both engines step: which teams play each round, the round barrier, the budget checks and
the stop decisions, as pure code without I/O, clocks or an event loop. `RoundProtocol.steps()` yields commands
and is sent each one's result; the asyncio engine and the Temporal workflow perform them their own way, so
they decide alike from the same results, and the workflow stays deterministic on replay."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mixseek.orchestrator.progress import TeamProgress, record_outcomes, undecided
from mixseek.round_controller.models import RoundOutcome
from mixseek.storage.models import RoundDecision, StopReason

Stop = tuple[StopReason, str | None]


@dataclass(frozen=True)
class BudgetCut:
    """The budget ran out: what ran out, as the stop's detail."""

    detail: str


@dataclass(frozen=True)
class Enter:
    """Round `round_number` is next for `teams` (the teams still in). Reply: None; a driver that
    hands the execution over to a new run (Temporal's continue-as-new) raises here instead."""

    round_number: int
    teams: tuple[str, ...]


@dataclass(frozen=True)
class Begin:
    """Check the budget, read the board the round starts from, mark `teams` started.
    Reply: a `BudgetCut` that stops the execution first, or None."""

    round_number: int
    teams: tuple[str, ...]


@dataclass(frozen=True)
class Play:
    """Play `teams`' rounds, at most `concurrency` at once. Reply: their `RoundOutcome`s."""

    round_number: int
    teams: tuple[str, ...]
    concurrency: int


@dataclass(frozen=True)
class Judge:
    """Decide and store whether each of `teams` goes on, at most `concurrency` at once.
    Reply: each team's `RoundDecision`, or a `BudgetCut` for a judgment the budget stopped."""

    round_number: int
    teams: tuple[str, ...]
    concurrency: int


@dataclass(frozen=True)
class Close:
    """The round and its decisions are stored: report what the execution has spent. Reply: None."""

    round_number: int
    stop: Stop


Command = Enter | Begin | Play | Judge | Close
Steps = Generator[Command, Any, Stop]


@dataclass
class RoundProtocol:
    """Rounds `from_round..max_rounds` over `team_ids`, updating `progress` from the replies."""

    team_ids: Sequence[str]
    progress: Mapping[str, TeamProgress]
    max_rounds: int
    concurrency: int
    from_round: int = 1

    def steps(self) -> Steps:
        for round_number in range(self.from_round, self.max_rounds + 1):
            alive = tuple(t for t in self.team_ids if self.progress[t].alive_at(round_number))
            if not alive:
                break
            yield Enter(round_number, alive)
            stop = yield from self._round(round_number, alive)
            yield Close(round_number, stop)
            if stop[0] != "finished":
                return stop
        return ("finished", None)

    def _round(self, round_number: int, alive: tuple[str, ...]) -> Steps:
        pending = tuple(t for t in alive if round_number not in self.progress[t].completed)
        if pending:
            cut: BudgetCut | None = yield Begin(round_number, pending)
            if cut is not None:
                return ("budget", cut.detail)
            outcomes: Sequence[RoundOutcome] = yield Play(round_number, pending, self.concurrency)
            budget_cut = record_outcomes(self.progress, round_number, outcomes)
            if budget_cut is not None:
                return ("budget", budget_cut)
        to_decide = tuple(undecided(self.progress, alive, round_number))
        if to_decide:
            decided: Mapping[str, RoundDecision | BudgetCut] = yield Judge(
                round_number, to_decide, self.concurrency
            )
            for verdict in decided.values():
                if isinstance(verdict, BudgetCut):
                    return ("budget", verdict.detail)
            for team_id in to_decide:
                decision = decided[team_id]
                assert isinstance(decision, RoundDecision)
                self.progress[team_id].record_decision(round_number, decision)
        return ("finished", None)


async def drive(steps: Steps, perform: Callable[[Command], Awaitable[Any]]) -> Stop:
    """Step `steps` to its end, performing each command with `perform`; the stop it ends with."""
    reply: Any = None
    while True:
        try:
            command = steps.send(reply)
        except StopIteration as end:
            stop: Stop = end.value
            return stop
        reply = await perform(command)
