"""Both engines step one round protocol: the Temporal workflow, driven on a real dev server by
scripted activities, ends with the decisions and the stop the local engine's driver ends with,
for any mix of team results, failures, budget stops and judgments, in any order of completion."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from temporalio import activity
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker

from mixseek.orchestrator.models import ExecutionSummary
from mixseek.orchestrator.progress import TeamProgress
from mixseek.orchestrator.temporal.client import WORKFLOW_RUNNER
from mixseek.orchestrator.temporal.messages import (
    BeginRound,
    ExecutionInput,
    FinishInput,
    GovernorAccess,
    JudgeResult,
    JudgeRound,
    RoundBegun,
    RoundWrites,
    TeamRoundInput,
    TeamRoundResult,
    store_queue,
    team_queue,
)
from mixseek.orchestrator.temporal.workflow import GOVERNOR_SIGNAL, ExecutionWorkflow
from mixseek.round_controller.models import RoundSnapshot
from orchestrator.round_scenarios import Ending, Scenario, run_locally, scenarios

CONFIG_HASH = "f" * 64


class ScriptedActivities:
    """The store queue's and the team queue's activities, answering from a scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self.s = scenario
        self.finished: FinishInput | None = None

    def all(self) -> list[Any]:
        return [self.load, self.begin, self.record, self.judge, self.usage, self.finish]

    @activity.defn(name="store_load_progress")
    async def load(self) -> dict[str, TeamProgress]:
        return {t: TeamProgress() for t in self.s.teams}

    @activity.defn(name="store_begin_round")
    async def begin(self, ask: BeginRound) -> RoundBegun:
        if self.s.budget_before == ask.round_number:
            return RoundBegun(exceeded="max_requests reached")
        return RoundBegun(snapshot=RoundSnapshot(up_to_round=ask.round_number - 1))

    @activity.defn(name="team_round")
    async def team_round(self, work: TeamRoundInput) -> TeamRoundResult:
        await asyncio.sleep(self.s.delays.get((work.team_id, work.round_number), 0) / 200)
        outcome = self.s.outcome(work.team_id, work.round_number)
        return TeamRoundResult(outcome=outcome, writes=RoundWrites(writes=[]).pack())

    @activity.defn(name="store_record_team_rounds")
    async def record(self, results: list[TeamRoundResult]) -> None:
        pass

    @activity.defn(name="store_judge_round")
    async def judge(self, ask: JudgeRound) -> list[JudgeResult]:
        answers = []
        for team_id in ask.team_ids:
            try:
                decision = self.s.decision(team_id, ask.round_number)
            except Exception as exc:
                answers.append(
                    JudgeResult(team_id=team_id, round_number=ask.round_number, budget_error=str(exc))
                )
            else:
                answers.append(JudgeResult(team_id=team_id, round_number=ask.round_number, decision=decision))
        return answers

    @activity.defn(name="store_report_usage")
    async def usage(self, round_number: int) -> None:
        pass

    @activity.defn(name="store_finish")
    async def finish(self, end: FinishInput) -> ExecutionSummary:
        self.finished = end
        return ExecutionSummary(execution_id="x", user_prompt="p", status="completed", stop_reason="finished")


async def run_on_temporal(address: str, scenario: Scenario) -> Ending:
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    scripted = ScriptedActivities(scenario)
    execution_id = f"protocol-{uuid.uuid4().hex[:12]}"
    params = ExecutionInput(
        execution_id=execution_id,
        user_prompt="p",
        team_ids=list(scenario.teams),
        max_rounds=scenario.max_rounds,
        min_rounds=1,
        max_concurrent_teams=scenario.concurrency,
        execution_timeout_seconds=None,
        team_round_timeout_seconds=None,
        config_hash=CONFIG_HASH,
    )
    async with (
        Worker(client, task_queue=store_queue(execution_id), workflows=[ExecutionWorkflow],
               activities=scripted.all(), workflow_runner=WORKFLOW_RUNNER),
        Worker(client, task_queue=team_queue(CONFIG_HASH), activities=[scripted.team_round]),
    ):  # fmt: skip
        handle = await client.start_workflow(
            ExecutionWorkflow.run,
            params,
            id=f"mixseek-{execution_id}",
            task_queue=store_queue(execution_id),
            start_signal=GOVERNOR_SIGNAL,
            start_signal_args=[GovernorAccess(address="127.0.0.1:1", token="t")],
        )
        await handle.result()
    end = scripted.finished
    assert end is not None
    return Ending((end.stop_reason, end.stop_detail), end.progress)  # type: ignore[arg-type]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenarios())
def test_the_workflow_decides_as_the_local_engine(temporal_address: str, scenario: Scenario) -> None:
    assert asyncio.run(run_on_temporal(temporal_address, scenario)) == asyncio.run(run_locally(scenario))
