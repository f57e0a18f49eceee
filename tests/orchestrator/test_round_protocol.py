"""The round protocol decides as the seed describes, whatever order team rounds and judgments end in."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from pydantic_ai import UsageLimitExceeded

from mixseek.orchestrator.progress import TeamProgress
from mixseek.orchestrator.round_protocol import Begin, BudgetCut, Close, Enter, Judge, Play, RoundProtocol

from .round_scenarios import Ending, Scenario, run_locally, scenarios


def expected(s: Scenario) -> Ending:
    """The seed's round loop written out plainly: every team still in plays, is scored, and is
    judged; a failed team and a team judged to stop play no more; the budget stops everything."""
    progress = {t: TeamProgress() for t in s.teams}
    for r in range(1, s.max_rounds + 1):
        alive = [t for t in s.teams if progress[t].failed is None and all(progress[t].decisions.values())]
        if not alive:
            break
        if s.budget_before == r:
            return Ending(("budget", "max_requests reached"), progress)
        cut = None
        for t in alive:
            outcome = s.outcome(t, r)
            if outcome.status == "completed":
                progress[t].completed[r] = outcome.score  # type: ignore[assignment]
            elif outcome.status == "budget":
                cut = outcome.error
            else:
                progress[t].failed = outcome.error
        if cut is not None:
            return Ending(("budget", cut), progress)
        judged = [t for t in alive if progress[t].failed is None]
        for t in judged:
            if s.decisions[(t, r)] == "budget":
                try:
                    s.decision(t, r)
                except UsageLimitExceeded as exc:
                    return Ending(("budget", str(exc)), progress)
        for t in judged:
            progress[t].record_decision(r, s.decision(t, r))
    return Ending(("finished", None), progress)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_the_local_driver_decides_as_the_seed_in_any_order_of_completion(scenario: Scenario) -> None:
    assert asyncio.run(run_locally(scenario)) == expected(scenario)


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_replaying_the_replies_gives_the_same_commands(scenario: Scenario) -> None:
    """What Temporal's replay relies on: the same replies give the same commands, and a team that
    failed or was stopped is never asked to play again."""
    commands = []
    for _ in range(2):
        progress = {t: TeamProgress() for t in scenario.teams}
        steps = RoundProtocol(scenario.teams, progress, scenario.max_rounds, scenario.concurrency).steps()
        seen, reply = [], None
        try:
            while True:
                command = steps.send(reply)
                seen.append(command)
                reply = _answer(scenario, command)
        except StopIteration as end:
            seen.append(end.value)
        commands.append(seen)
    assert commands[0] == commands[1]
    ended: set[str] = set()
    for command in commands[0]:
        if isinstance(command, Play):
            assert not ended & set(command.teams)
            for t in command.teams:
                if scenario.outcome(t, command.round_number).status in ("failed", "timeout"):
                    ended.add(t)
        if isinstance(command, Judge):
            ended |= {t for t in command.teams if scenario.decisions[(t, command.round_number)] is False}


def _answer(s: Scenario, command: object) -> object:
    match command:
        case Begin(round_number=r):
            return BudgetCut("max_requests reached") if s.budget_before == r else None
        case Play(round_number=r, teams=teams):
            return [s.outcome(t, r) for t in teams]
        case Judge(round_number=r, teams=teams):
            out: dict[str, object] = {}
            for t in teams:
                try:
                    out[t] = s.decision(t, r)
                except Exception as exc:
                    out[t] = BudgetCut(str(exc))
            return out
        case Enter() | Close():
            return None
    raise AssertionError(command)


def test_a_round_whose_budget_check_fails_still_reports_usage_and_stops() -> None:
    progress = {"a": TeamProgress()}
    steps = RoundProtocol(["a"], progress, max_rounds=3, concurrency=1).steps()
    assert steps.send(None) == Enter(1, ("a",))
    assert steps.send(None) == Begin(1, ("a",))
    assert steps.send(BudgetCut("max_cost_usd reached")) == Close(1, ("budget", "max_cost_usd reached"))
    try:
        steps.send(None)
    except StopIteration as end:
        assert end.value == ("budget", "max_cost_usd reached")
    else:
        raise AssertionError("the protocol went on after the budget stopped it")
