"""An execution as a Temporal workflow: the round protocol's other driver, as deterministic code. Team rounds
run as activities on the team queue (any `mixseek worker`); store work and judgments as local activities of
the `mixseek exec` process that owns the workspace. Progress comes from the store, so a new workflow for an
interrupted execution resumes it as the local engine does."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

from mixseek.agents.concurrency import run_bounded
from mixseek.errors import RuntimeFailure
from mixseek.orchestrator.models import ExecutionSummary
from mixseek.orchestrator.progress import TeamProgress
from mixseek.orchestrator.round_protocol import (
    Begin,
    BudgetCut,
    Close,
    Command,
    Enter,
    Judge,
    Play,
    RoundProtocol,
    Stop,
    drive,
)
from mixseek.orchestrator.temporal.batching import Batcher
from mixseek.orchestrator.temporal.messages import (
    GOVERNOR_UNREACHABLE,
    RANKING_QUERY,
    WORKFLOW_NAME,
    BeginRound,
    ExecutionInput,
    FinishInput,
    GovernorAccess,
    JudgeResult,
    JudgeRound,
    RankingAsk,
    RoundBegun,
    TeamRoundInput,
    TeamRoundResult,
    store_queue,
    team_queue,
)
from mixseek.round_controller.models import RoundOutcome, RoundSnapshot

# A worker that stops beating for this long is taken for dead: its team round goes to another.
HEARTBEAT_TIMEOUT = timedelta(seconds=15)
# Store work and judgments run in the `mixseek exec` process with the workflow: when it is away
# (killed, then resumed) the workflow waits for it, and they run again there. This bounds one
# store operation; a judgment is bounded like a team round.
STORE_TIMEOUT = timedelta(minutes=10)
# finishing may run the pairwise stage (many judge calls): an activity of the store queue, bounded
# by its heartbeat, not a clock
FINISH_TIMEOUT = timedelta(days=1)
STORE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=3)
# Results stored by one store activity at most (their JSON and compressed writes, in bytes): one
# transaction's worth, and one payload, which Temporal refuses over 2 MB.
STORE_BATCH_BYTES = 1_000_000
WORK_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=5)
# A round whose worker could not reach the governor service waits this long for a `mixseek exec`
# that serves it elsewhere (a resumed one) before the execution fails.
GOVERNOR_WAIT = timedelta(minutes=10)
GOVERNOR_SIGNAL = "governor"

# a run continues as a new one past this much history, well before Temporal's 50 MB limit
HISTORY_BYTES_PER_RUN = 20_000_000


def for_team(snapshot: RoundSnapshot, team_id: str) -> RoundSnapshot:
    """The board as one team's activity carries it: its own history and no ranking (which workers
    ask by `RANKING_QUERY`), or a round's inputs grow as T² past gRPC's 4 MB message limit."""
    own = {team_id: snapshot.histories[team_id]} if team_id in snapshot.histories else {}
    return snapshot.model_copy(update={"histories": own, "ranking": []})


T = TypeVar("T")


class Handover(RuntimeFailure):
    """This run's history is full: a new run goes on from the next round (continue-as-new)."""


@workflow.defn(name=WORKFLOW_NAME)
class ExecutionWorkflow:
    """Rounds 1..max_rounds over the teams still in, with a barrier after each round."""

    def __init__(self) -> None:
        self._p: ExecutionInput | None = None
        self._progress: dict[str, TeamProgress] = {}
        self._rounds_run = 0
        self._governor: GovernorAccess | None = None
        # team results are stored in batches, each by one store activity
        self._batches = 0
        self._saves = Batcher(self._save_team_rounds, size=_json_size, max_size=STORE_BATCH_BYTES)
        # the rankings the current round's team rounds still need, served by `ranking`; set from
        # store activities' results, so a replay rebuilds them
        self._rankings: dict[int, list[dict[str, Any]]] = {}
        self._before = RoundSnapshot(up_to_round=0)  # the board the round's team rounds start from

    @workflow.signal(name=GOVERNOR_SIGNAL)
    def set_governor(self, access: GovernorAccess) -> None:
        """The governor service of the `mixseek exec` process now attached (sent with the start)."""
        self._governor = access

    @workflow.query(name=RANKING_QUERY)
    def ranking(self, ask: RankingAsk) -> list[dict[str, Any]]:
        """The ranking a round's team rounds start from, held until they are all done."""
        held = self._rankings.get(ask.round_number)
        if held is None:
            raise ApplicationError(f"round {ask.round_number}'s ranking is no longer held")
        return held

    @property
    def p(self) -> ExecutionInput:
        assert self._p is not None
        return self._p

    @workflow.run
    async def run(self, params: ExecutionInput) -> ExecutionSummary:
        self._p = params
        started = params.started_at or workflow.now()
        self._rounds_run = params.rounds_run
        if self._governor is None:  # a signal to this run wins over the access carried over
            self._governor = params.governor
        await workflow.wait_condition(lambda: self._governor is not None)
        self._progress = await self._store(
            "store_load_progress", None, "load-progress", dict[str, TeamProgress]
        )
        stop: Stop = ("finished", None)
        handover = False
        timeout = params.execution_timeout_seconds
        try:
            if timeout:
                left = timeout - (workflow.now() - started).total_seconds()
                if left <= 0:
                    raise TimeoutError
                stop = await asyncio.wait_for(self._rounds(), left)
            else:
                stop = await self._rounds()
        except TimeoutError:
            stop = ("execution_timeout", f"execution timeout of {timeout:g} s")
        except Handover:
            handover = True
        # a store write under way when the timeout cancelled its rounds ends before the summary
        await self._saves.idle()
        if handover:
            # the store holds the progress; the next run reloads it with a fresh history
            workflow.continue_as_new(
                params.model_copy(
                    update={
                        "from_round": self._rounds_run + 1,
                        "started_at": started,
                        "rounds_run": self._rounds_run,
                        "governor": self._governor,
                    }
                )
            )
        finish = FinishInput(
            progress=self._progress,
            stop_reason=stop[0],
            stop_detail=stop[1],
            rounds_run=self._rounds_run,
            started_at=started,
        )
        summary: ExecutionSummary = await workflow.execute_activity(
            "store_finish",
            finish,
            task_queue=store_queue(self.p.execution_id),
            activity_id="store-finish",
            start_to_close_timeout=FINISH_TIMEOUT,
            heartbeat_timeout=HEARTBEAT_TIMEOUT,
            retry_policy=STORE_RETRY,
            result_type=ExecutionSummary,
        )
        return summary

    async def _rounds(self) -> Stop:
        p = self.p
        protocol = RoundProtocol(
            p.team_ids, self._progress, p.max_rounds, p.max_concurrent_teams, p.from_round
        )
        return await drive(protocol.steps(), self._perform)

    async def _perform(self, command: Command) -> Any:
        """One protocol command: store work and judgments as local activities, team rounds on the queue."""
        match command:
            case Enter(round_number=r):
                if r > self.p.from_round and self._history_full():
                    raise Handover
                self._rounds_run = r
                return None
            case Begin(round_number=r, teams=teams):
                ask = BeginRound(round_number=r, pending=list(teams))
                begun = await self._store("store_begin_round", ask, f"r{r}-begin", RoundBegun)
                if begun.exceeded is not None:
                    return BudgetCut(begun.exceeded)
                assert begun.snapshot is not None
                self._before = begun.snapshot
                self._rankings[r] = begun.snapshot.ranking
                return None
            case Play(round_number=r, teams=teams, concurrency=n):
                outcomes = await run_bounded([partial(self._play_team, t, r) for t in teams], n)
                del self._rankings[r]
                return outcomes
            case Judge(round_number=r, teams=teams, concurrency=n):
                # a judgment waits on a model as a team round does, and is bounded alike, per wave
                # of judgments that may run at once
                judge = JudgeRound(round_number=r, team_ids=list(teams))
                limit = self._work_limit * math.ceil(len(teams) / n)
                decided = await self._store(
                    "store_judge_round", judge, f"r{r}-judgments", list[JudgeResult], timeout=limit
                )
                return {j.team_id: j.decision or BudgetCut(j.budget_error or "") for j in decided}
            case Close(round_number=r):
                await self._store("store_report_usage", r, f"r{r}-usage", type(None))
                return None

    def _history_full(self) -> bool:
        """Whether this run's history is long enough to go on in a new run (checked between rounds)."""
        info = workflow.info()
        return (
            info.get_current_history_length() >= self.p.history_events_per_run
            or info.get_current_history_size() >= HISTORY_BYTES_PER_RUN
            or info.is_continue_as_new_suggested()
        )

    async def _play_team(self, team_id: str, round_number: int) -> RoundOutcome:
        work = TeamRoundInput(
            execution_id=self.p.execution_id,
            user_prompt=self.p.user_prompt,
            team_id=team_id,
            round_number=round_number,
            snapshot=for_team(self._before, team_id),
            config_hash=self.p.config_hash,
            governor=self._access,
            reference=self.p.reference,
        )
        result = await self._play(work, f"{team_id}-r{round_number}")
        await self._saves.put(result)
        return result.outcome

    async def _store(
        self,
        name: str,
        arg: Any,
        activity_id: str,
        result_type: type[T],
        *,
        timeout: timedelta = STORE_TIMEOUT,
    ) -> T:
        """Store work or a round's judgments, done by the process owning the workspace (this workflow's)."""
        result: T = await workflow.execute_local_activity(
            name,
            args=[] if arg is None else [arg],
            activity_id=f"store-{activity_id}",
            start_to_close_timeout=timeout,
            retry_policy=STORE_RETRY,
            result_type=result_type,
        )
        return result

    async def _save_team_rounds(self, results: list[TeamRoundResult]) -> None:
        """One batch of team results, stored in one transaction by the store's activity."""
        outcome = results[0].outcome
        # its round, its number in this run, its first team and how many others follow, e.g.
        # `r2-save7-alpha+12`
        self._batches += 1
        others = f"+{len(results) - 1}" if len(results) > 1 else ""
        name = f"r{outcome.round_number}-save{self._batches}-{outcome.team_id}{others}"
        await self._store("store_record_team_rounds", results, name, type(None))

    @property
    def _work_limit(self) -> timedelta:
        """How long a team round or judgment may take: only lost work hits it (the controller times teams)."""
        per_team = self.p.team_round_timeout_seconds
        return timedelta(seconds=per_team + 300) if per_team else timedelta(days=1)

    @property
    def _access(self) -> GovernorAccess:
        assert self._governor is not None
        return self._governor

    async def _play(self, work: TeamRoundInput, activity_id: str) -> TeamRoundResult:
        """A team round, on any worker with this configuration; one whose worker could not reach the governor
        service waits for a `mixseek exec` serving it and runs again."""
        limit = self._work_limit
        again = 0
        while True:
            try:
                result: TeamRoundResult = await workflow.execute_activity(
                    "team_round",
                    work,
                    task_queue=team_queue(self.p.config_hash),
                    activity_id=f"{activity_id}-again{again}" if again else activity_id,
                    start_to_close_timeout=limit,
                    heartbeat_timeout=HEARTBEAT_TIMEOUT,
                    retry_policy=WORK_RETRY,
                    result_type=TeamRoundResult,
                )
                return result
            except ActivityError as exc:
                cause = exc.cause
                if not (isinstance(cause, ApplicationError) and cause.type == GOVERNOR_UNREACHABLE):
                    raise
                try:
                    await workflow.wait_condition(_changed(self, work.governor), timeout=GOVERNOR_WAIT)
                except TimeoutError:
                    raise exc from None
                work = work.model_copy(update={"governor": self._access})
                again += 1


def _json_size(message: TeamRoundResult) -> int:
    return len(message.outcome.model_dump_json()) + len(message.writes)


def _changed(run: ExecutionWorkflow, tried: GovernorAccess) -> Callable[[], bool]:
    """True once another `mixseek exec` has signalled its governor service."""
    return lambda: run._governor != tried
