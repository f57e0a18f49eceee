"""An execution as a Temporal workflow: the round loop of the local engine, as deterministic code.

It decides what runs — which teams play a round, the round barrier, the budget check before a
round, the stop decisions — and delegates the rest to activities: team rounds and judgments on
the team queue (any `mixseek worker`), reads and writes of the store on the store queue (the
`mixseek exec` process owning the workspace). That process also serves the execution's governor
(budgets, rate limits); each one that attaches signals its address, which the activities carry.
Progress comes from the store, so a new workflow for an interrupted execution resumes it just as
the local engine does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from mixseek.orchestrator.models import ExecutionSummary
    from mixseek.orchestrator.progress import TeamProgress
    from mixseek.orchestrator.temporal.messages import (
        GOVERNOR_UNREACHABLE,
        WORKFLOW_NAME,
        BeginRound,
        BoardAfter,
        ExecutionInput,
        FinishInput,
        GovernorAccess,
        JudgeInput,
        JudgeResult,
        RoundBegun,
        TeamRoundInput,
        TeamRoundResult,
        store_queue,
        team_queue,
    )
    from mixseek.round_controller.models import RoundOutcome, RoundSnapshot

# A worker that stops beating for this long is taken for dead: its team round goes to another.
HEARTBEAT_TIMEOUT = timedelta(seconds=15)
# Store work waits for the `mixseek exec` process however long it is away (killed, then resumed);
# once started, it beats like a team round.
STORE_TIMEOUT = timedelta(minutes=10)
STORE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=3)
WORK_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=5)
# A round whose worker could not reach the governor service waits this long for a `mixseek exec`
# that serves it elsewhere (a resumed one) before the execution fails, as long as store work waits.
GOVERNOR_WAIT = STORE_TIMEOUT
GOVERNOR_SIGNAL = "governor"

Stop = tuple[str, str | None]


def for_team(snapshot: RoundSnapshot, team_id: str) -> RoundSnapshot:
    """The board as one team's activity needs it: the ranking and that team's own history only.

    Every activity input is kept in the workflow's history and all of a round's inputs go to the
    server in one message: with every team's history in each, both grew as T² (T = 64 already
    passed gRPC's 4 MB message limit, and the server terminated the workflow)."""
    own = {team_id: snapshot.histories[team_id]} if team_id in snapshot.histories else {}
    return snapshot.model_copy(update={"histories": own})


T = TypeVar("T")


@workflow.defn(name=WORKFLOW_NAME)
class ExecutionWorkflow:
    """Rounds 1..max_rounds over the teams still in, with a barrier after each round."""

    def __init__(self) -> None:
        self._p: ExecutionInput | None = None
        self._progress: dict[str, TeamProgress] = {}
        self._rounds_run = 0
        self._governor: GovernorAccess | None = None

    @workflow.signal(name=GOVERNOR_SIGNAL)
    def set_governor(self, access: GovernorAccess) -> None:
        """The governor service of the `mixseek exec` process now attached (sent with the start)."""
        self._governor = access

    @property
    def p(self) -> ExecutionInput:
        assert self._p is not None
        return self._p

    @workflow.run
    async def run(self, params: ExecutionInput) -> ExecutionSummary:
        self._p = params
        started = workflow.now()
        await workflow.wait_condition(lambda: self._governor is not None)
        self._progress = await self._store(
            "store_load_progress", None, "load-progress", dict[str, TeamProgress]
        )
        stop: Stop
        timeout = params.execution_timeout_seconds
        try:
            stop = await (asyncio.wait_for(self._rounds(), timeout) if timeout else self._rounds())
        except TimeoutError:
            stop = ("execution_timeout", f"execution timeout of {timeout:g} s")
        finish = FinishInput(
            progress=self._progress,
            stop_reason=stop[0],
            stop_detail=stop[1],
            rounds_run=self._rounds_run,
            started_at=started,
        )
        return await self._store("store_finish", finish, "finish", ExecutionSummary)

    async def _rounds(self) -> Stop:
        for round_number in range(1, self.p.max_rounds + 1):
            alive = [t for t in self.p.team_ids if self._progress[t].alive_at(round_number)]
            if not alive:
                break
            self._rounds_run = round_number
            stop = await self._round(round_number, alive)
            await self._store("store_report_usage", round_number, f"r{round_number}-usage", type(None))
            if stop[0] != "finished":
                return stop
        return ("finished", None)

    async def _round(self, round_number: int, alive: list[str]) -> Stop:
        progress = self._progress
        slots = asyncio.Semaphore(self.p.max_concurrent_teams)
        pending = [t for t in alive if round_number not in progress[t].completed]
        if pending:
            begun = await self._store(
                "store_begin_round",
                BeginRound(round_number=round_number, pending=pending),
                f"r{round_number}-begin",
                RoundBegun,
            )
            if begun.exceeded is not None:
                return ("budget", begun.exceeded)
            assert begun.snapshot is not None
            before = begun.snapshot

            async def play(team_id: str) -> RoundOutcome:
                async with slots:
                    work = TeamRoundInput(
                        execution_id=self.p.execution_id,
                        user_prompt=self.p.user_prompt,
                        team_id=team_id,
                        round_number=round_number,
                        snapshot=for_team(before, team_id),
                        config_hash=self.p.config_hash,
                        governor=self._access,
                        reference=self.p.reference,
                    )
                    result = await self._work(
                        "team_round", work, f"{team_id}-r{round_number}", TeamRoundResult
                    )
                    await self._store(
                        "store_record_team_round", result, f"{team_id}-r{round_number}-save", type(None)
                    )
                    return result.outcome

            outcomes = await asyncio.gather(*(play(t) for t in pending))
            budget_cut: str | None = None
            for outcome in outcomes:
                team = progress[outcome.team_id]
                if outcome.status == "completed" and outcome.score is not None:
                    team.completed[round_number] = outcome.score
                elif outcome.status == "budget":
                    budget_cut = outcome.error
                else:
                    team.failed = outcome.error or outcome.status
            if budget_cut is not None:
                return ("budget", budget_cut)
        undecided = [
            t for t in alive if progress[t].failed is None and round_number not in progress[t].decisions
        ]
        if not undecided:
            return ("finished", None)
        after = await self._store("store_board_after", round_number, f"r{round_number}-board", BoardAfter)

        async def decide(team_id: str) -> JudgeResult:
            async with slots:
                ask = JudgeInput(
                    execution_id=self.p.execution_id,
                    user_prompt=self.p.user_prompt,
                    team_id=team_id,
                    round_number=round_number,
                    min_rounds=self.p.min_rounds,
                    max_rounds=self.p.max_rounds,
                    snapshot=for_team(after.snapshot, team_id),
                    config_hash=self.p.config_hash,
                    governor=self._access,
                )
                result = await self._work("judge", ask, f"{team_id}-r{round_number}-judgment", JudgeResult)
                await self._store(
                    "store_record_judgment", result, f"{team_id}-r{round_number}-decision", type(None)
                )
                return result

        decided = await asyncio.gather(*(decide(t) for t in undecided))
        for result in decided:
            if result.budget_error is not None:
                return ("budget", result.budget_error)
        for result in decided:
            assert result.decision is not None
            progress[result.team_id].decisions[round_number] = result.decision.should_continue
            if not result.decision.should_continue:
                progress[result.team_id].exit_reason = result.decision.reason
        return ("finished", None)

    async def _store(self, name: str, arg: Any, activity_id: str, result_type: type[T]) -> T:
        """Store work, done by the process owning the workspace."""
        result: T = await workflow.execute_activity(
            name,
            args=[] if arg is None else [arg],
            task_queue=store_queue(self.p.execution_id),
            activity_id=f"store-{activity_id}",
            start_to_close_timeout=STORE_TIMEOUT,
            heartbeat_timeout=HEARTBEAT_TIMEOUT,
            retry_policy=STORE_RETRY,
            result_type=result_type,
        )
        return result

    @property
    def _access(self) -> GovernorAccess:
        assert self._governor is not None
        return self._governor

    async def _work(
        self, name: str, arg: TeamRoundInput | JudgeInput, activity_id: str, result_type: type[T]
    ) -> T:
        """A team round or a judgment, on any worker with this configuration.

        One its workers could not ask the governor service for waits for a `mixseek exec` that
        serves it elsewhere (the one that was killed is resumed) and is run again from the start."""
        per_team = self.p.team_round_timeout_seconds
        # the round controller enforces the team timeout; this only catches a lost worker
        limit = timedelta(seconds=per_team + 300) if per_team else timedelta(days=1)
        again = 0
        while True:
            try:
                result: T = await workflow.execute_activity(
                    name,
                    arg,
                    task_queue=team_queue(self.p.config_hash),
                    activity_id=f"{activity_id}-again{again}" if again else activity_id,
                    start_to_close_timeout=limit,
                    heartbeat_timeout=HEARTBEAT_TIMEOUT,
                    retry_policy=WORK_RETRY,
                    result_type=result_type,
                )
                return result
            except ActivityError as exc:
                cause = exc.cause
                if not (isinstance(cause, ApplicationError) and cause.type == GOVERNOR_UNREACHABLE):
                    raise
                try:
                    await workflow.wait_condition(_changed(self, arg.governor), timeout=GOVERNOR_WAIT)
                except TimeoutError:
                    raise exc from None
                arg = arg.model_copy(update={"governor": self._access})
                again += 1


def _changed(run: ExecutionWorkflow, tried: GovernorAccess) -> Callable[[], bool]:
    """True once another `mixseek exec` has signalled its governor service."""
    return lambda: run._governor != tried
