"""Scripted executions for the round protocol: what each team round, judgment and budget check
answers, in any order of completion, and the local engine's driver run over them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st
from pydantic_ai import UsageLimitExceeded

from mixseek.orchestrator.events import EventBus
from mixseek.orchestrator.local_rounds import LocalRounds
from mixseek.orchestrator.progress import TeamProgress
from mixseek.orchestrator.round_protocol import RoundProtocol, Stop, drive
from mixseek.orchestrator.round_steps import RoundSteps
from mixseek.round_controller.models import RoundOutcome, RoundSnapshot
from mixseek.storage.models import RoundDecision
from mixseek.storage.overview import UsageTotals

TEAMS = ("alpha", "beta", "gamma")
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Scenario:
    """What every step answers: `results[(team, round)]` is a score or "failed"/"timeout"/"budget";
    `decisions[(team, round)]` is True (go on), False (stop) or "budget"; the budget check before
    round `budget_before` stops the execution; `delays` are the yields each step waits first, so
    steps end in another order."""

    teams: tuple[str, ...]
    max_rounds: int
    concurrency: int
    results: dict[tuple[str, int], float | str]
    decisions: dict[tuple[str, int], bool | str]
    budget_before: int | None
    delays: dict[tuple[str, int], int] = field(default_factory=dict)

    def outcome(self, team_id: str, round_number: int) -> RoundOutcome:
        result = self.results[(team_id, round_number)]
        fields: dict[str, Any] = {"status": "completed", "score": result}
        if isinstance(result, str):
            fields = {"status": result, "error": f"{team_id} r{round_number}: {result}"}
        return RoundOutcome(
            execution_id="x",
            team_id=team_id,
            team_name=team_id,
            round_number=round_number,
            started_at=NOW,
            ended_at=NOW,
            **fields,
        )

    def decision(self, team_id: str, round_number: int) -> RoundDecision:
        """The judgment, as the round controller would make it; raises for a budget stop."""
        verdict = self.decisions[(team_id, round_number)]
        if verdict == "budget":
            raise UsageLimitExceeded(f"budget reached judging {team_id} r{round_number}")
        if round_number >= self.max_rounds:
            return RoundDecision(should_continue=False, reason="max_rounds")
        return RoundDecision(should_continue=bool(verdict), reason="judgment", reasoning="scripted")

    async def wait(self, team_id: str, round_number: int) -> None:
        for _ in range(self.delays.get((team_id, round_number), 0)):
            await asyncio.sleep(0)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    teams = TEAMS[: draw(st.integers(1, 3))]
    max_rounds = draw(st.integers(1, 3))
    keys = [(t, r) for t in teams for r in range(1, max_rounds + 1)]
    result = st.one_of(
        st.floats(0, 100, allow_nan=False).map(lambda s: round(s, 1)),
        st.sampled_from(["failed", "timeout", "budget"]),
    )
    weighted = st.one_of(result, st.floats(0, 100).map(lambda s: round(s, 1)))  # scores more often
    decision = st.sampled_from([True, True, False, "budget"])
    return Scenario(
        teams=teams,
        max_rounds=max_rounds,
        concurrency=draw(st.integers(1, 3)),
        results={k: draw(weighted) for k in keys},
        decisions={k: draw(decision) for k in keys},
        budget_before=draw(st.one_of(st.none(), st.integers(1, max_rounds))),
        delays={k: draw(st.integers(0, 4)) for k in keys},
    )


@dataclass
class Ending:
    """What a driver ends with: the stop, and each team's progress."""

    stop: Stop
    progress: dict[str, TeamProgress]


class _Ledger:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.round = 0

    def exceeded(self, budget: object) -> str | None:
        return "max_requests reached" if self.round == self.scenario.budget_before else None

    def take_unsaved_rows(self) -> list[dict[str, Any]]:
        return []


class _Governor:
    budget = None

    def __init__(self, scenario: Scenario) -> None:
        self.ledger = _Ledger(scenario)


class _Store:
    """The store calls the round steps make, answering what an empty execution's store would."""

    def __init__(self, ledger: _Ledger) -> None:
        self.ledger = ledger

    async def mark_rounds_started(self, execution_id: str, round_number: int, teams: list[str]) -> None:
        pass

    async def get_submission_histories(self, execution_id: str, *, before_round: int) -> dict[str, Any]:
        return {}

    async def get_leader_board_ranking(self, execution_id: str, *, max_round: int) -> list[Any]:
        return []

    async def record_model_calls(self, execution_id: str, rows: list[Any]) -> None:
        pass

    async def get_usage_totals(self, execution_id: str) -> UsageTotals:
        return UsageTotals()


class _Controller:
    def __init__(self, scenario: Scenario, team_id: str) -> None:
        self.scenario, self.team_id = scenario, team_id

    async def run_team_round(self, round_number: int, *, snapshot: RoundSnapshot) -> RoundOutcome:
        await self.scenario.wait(self.team_id, round_number)
        return self.scenario.outcome(self.team_id, round_number)

    async def decide(self, round_number: int, **_: Any) -> RoundDecision:
        await self.scenario.wait(self.team_id, round_number)
        return self.scenario.decision(self.team_id, round_number)

    async def record_decision(self, round_number: int, decision: RoundDecision) -> None:
        pass


class _CountingSteps(RoundSteps):
    """The real round steps; the budget check sees which round is beginning."""

    async def begin(self, round_number: int, teams: Any) -> Any:
        self.governor.ledger.round = round_number
        return await super().begin(round_number, teams)


async def run_locally(scenario: Scenario) -> Ending:
    """The local engine's driver (`LocalRounds` over the real `RoundSteps`) through the scenario."""
    governor = _Governor(scenario)
    steps = _CountingSteps(
        execution_id="x",
        store=_Store(governor.ledger),  # type: ignore[arg-type]
        governor=governor,  # type: ignore[arg-type]
        events=EventBus(()),
        controller_for=lambda t: _Controller(scenario, t),  # type: ignore[arg-type,return-value]
        min_rounds=1,
        max_rounds=scenario.max_rounds,
    )
    progress = {t: TeamProgress() for t in scenario.teams}
    protocol = RoundProtocol(scenario.teams, progress, scenario.max_rounds, scenario.concurrency)
    with LocalRounds(steps) as rounds:
        stop = await drive(protocol.steps(), rounds.perform)
    return Ending(stop, progress)
