"""The `mixseek exec` side of the temporal engine: starts (or reattaches to) the workflow, serves its store
queue (so this process stays the store's one writer) and the execution's governor. The store activities apply
the writes workers recorded once, so an activity repeated after this process died stores nothing twice. A
server that stops answering leaves the execution interrupted (`EngineLost`)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, cast

from temporalio import activity
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from mixseek.config.bundle import ExecutionConfig
from mixseek.errors import InputError, RuntimeFailure, describe_exception
from mixseek.orchestrator.engine_lost import EngineLost
from mixseek.orchestrator.events import EventSink, TeamRoundFinished, TeamRoundStarted, WorkflowReplaced
from mixseek.orchestrator.models import ExecutionSummary, StopReason
from mixseek.orchestrator.orchestrator import Orchestrator
from mixseek.orchestrator.progress import TeamProgress, interrupted
from mixseek.orchestrator.round_protocol import BudgetCut
from mixseek.orchestrator.round_steps import Verdict
from mixseek.orchestrator.temporal.governor_service import GovernorService
from mixseek.orchestrator.temporal.heartbeat import heartbeating
from mixseek.orchestrator.temporal.identity import build_id, work_hash
from mixseek.orchestrator.temporal.messages import (
    BeginRound,
    ExecutionInput,
    FinishInput,
    JudgeResult,
    JudgeRound,
    RoundBegun,
    RoundWrites,
    TeamRoundResult,
    store_queue,
    workflow_id,
)
from mixseek.orchestrator.temporal.reattach import replace_stale_workflow
from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime
from mixseek.orchestrator.temporal.workflow import GOVERNOR_SIGNAL, ExecutionWorkflow
from mixseek.storage.errors import StorageError
from mixseek.storage.models import RoundDecision, RoundStatusRecord
from mixseek.version import __version__

# local activities at once: the workflow runs a few (the round's start, a batch of team results
# being stored, the round's judgments, which run their teams at once inside one)
LOCAL_ACTIVITY_SLOTS = 8

PROBE_SECONDS = 30.0

# Outside Temporal's sandbox, whose proxies cost about 3 ms of CPU per team round: the workflow
# uses only asyncio's tasks and Temporal's clock, and a replay test checks its determinism.
WORKFLOW_RUNNER = UnsandboxedWorkflowRunner()


async def connect(address: str) -> Client:
    """A client for `address`, probed over TCP first: a failed connect can abort the interpreter at exit."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--temporal-address: {address!r}: expected HOST:PORT")
    try:
        await asyncio.to_thread(_probe, host.strip("[]"), int(port))
        return await Client.connect(address, data_converter=pydantic_data_converter, runtime=sdk_runtime())
    except Exception as exc:
        raise InputError(
            f"--temporal-address: cannot reach a Temporal server at {address} ({describe_exception(exc)})"
        ) from None


def _probe(host: str, port: int) -> None:
    with socket.create_connection((host, port), timeout=PROBE_SECONDS):
        pass


async def _unreachable_because(address: str) -> str | None:
    """Why `address` takes no TCP connection now (its server is gone), or None when it does."""
    host, _, port = address.rpartition(":")
    try:
        await asyncio.to_thread(_probe, host.strip("[]"), int(port))
    except OSError as exc:
        return describe_exception(exc)
    return None


class TemporalOrchestrator(Orchestrator):
    """An execution run as a Temporal workflow at `address`; this process writes the store."""

    def __init__(
        self,
        config: ExecutionConfig,
        *,
        address: str,
        sinks: Iterable[EventSink] = (),
        governor_listen: str | None = None,
    ) -> None:
        super().__init__(config, sinks=sinks)
        self.address = address
        self.governor_listen = governor_listen  # HOST:PORT; default 127.0.0.1 on a free port
        self.config_hash = work_hash(config)
        self._resuming = False

    async def resume(self, execution_id: str) -> ExecutionSummary:
        self._resuming = True
        try:
            return await super().resume(execution_id)
        finally:
            self._resuming = False

    def _execution_input(self, execution_id: str, user_prompt: str) -> ExecutionInput:
        s = self.settings
        return ExecutionInput(
            execution_id=execution_id,
            user_prompt=user_prompt,
            team_ids=list(self.teams),
            max_rounds=s.max_rounds,
            min_rounds=s.min_rounds,
            max_concurrent_teams=s.max_concurrent_teams,
            execution_timeout_seconds=s.execution_timeout_seconds,
            team_round_timeout_seconds=s.timeout_per_team_seconds,
            config_hash=self.config_hash,
            reference=self.reference,
            history_events_per_run=s.temporal_history_events_per_run,
        )

    async def _drive(self, execution_id: str, user_prompt: str) -> ExecutionSummary:
        store_work = StoreActivities(self, execution_id, user_prompt)
        try:
            client = await connect(self.address)
            if self._resuming:
                # only a resume takes over a running workflow: a new execution's id is new
                reason = await replace_stale_workflow(client, execution_id, self.config_hash)
                if reason is not None:
                    self.events.emit(WorkflowReplaced(execution_id=execution_id, reason=reason))
            return await self._serve(client, store_work)
        except asyncio.CancelledError:
            if self._lease_lost is not None:
                await self.store.aclose()
                raise RuntimeFailure(f"stopped without finishing: {self._lease_lost}") from None
            # the workflow goes on without this process; `--resume` reattaches to it
            progress = await self._load_progress(execution_id)
            await self._finish(execution_id, user_prompt, progress, interrupted(progress))
            await self.store.aclose()
            raise
        except WorkflowFailureError as exc:
            if store_work.storage_error is not None:
                raise store_work.storage_error from None
            raise RuntimeFailure(
                f"workflow {workflow_id(execution_id)} failed: {describe_exception(exc.cause or exc)}"
            ) from None
        except Exception:
            # the server went away (its RPCs fail, and this process's worker with them): the
            # execution is left interrupted (`_ownership`), and a resume goes on once it is back
            gone = await _unreachable_because(self.address)
            if gone is None:
                raise
            raise EngineLost(f"the Temporal server at {self.address} stopped answering ({gone})") from None
        finally:
            await self.store.aclose()

    async def _serve(self, client: Client, store_work: StoreActivities) -> ExecutionSummary:
        """Start (or reattach to) the workflow and serve its store queue and governor until it ends."""
        execution_id = store_work.execution_id
        queue = store_queue(execution_id)
        async with (
            GovernorService(self.governor, listen=self.governor_listen) as governor,
            Worker(
                client,
                task_queue=queue,
                workflows=[ExecutionWorkflow],
                activities=store_work.activities(),
                workflow_runner=WORKFLOW_RUNNER,
                max_concurrent_local_activities=LOCAL_ACTIVITY_SLOTS,
                build_id=build_id(self.config_hash),
            ),
        ):
            # a workflow still running (this process was killed, or interrupted) is reattached,
            # and told where this process serves the execution's governor
            handle = await client.start_workflow(
                ExecutionWorkflow.run,
                self._execution_input(execution_id, store_work.user_prompt),
                id=workflow_id(execution_id),
                task_queue=queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                memo={
                    "config_hash": self.config_hash,
                    "version": __version__,
                    "workspace": str(self.config.workspace.root),
                },
                start_signal=GOVERNOR_SIGNAL,
                start_signal_args=[governor.access],
            )
            return await handle.result()


class StoreActivities:
    """The store queue's activities, run in the `mixseek exec` process with its orchestrator."""

    def __init__(self, engine: TemporalOrchestrator, execution_id: str, user_prompt: str) -> None:
        self.engine = engine
        self.execution_id = execution_id
        self.user_prompt = user_prompt
        self.steps = engine._round_steps(execution_id, user_prompt)
        self.steps.stored_decision = self._stored_decision
        self.storage_error: StorageError | None = None
        # what earlier processes stored (read once), and what this one has applied since: this
        # process holds the execution's lease, so nobody else writes (a read per result was T²)
        self._before: dict[tuple[str, int], RoundStatusRecord] | None = None
        self._saved: set[tuple[str, int]] = set()

    def activities(self) -> list[Callable[..., Any]]:
        return [
            self.load_progress,
            self.begin_round,
            self.record_team_rounds,
            self.judge_round,
            self.report_usage,
            self.finish,
        ]

    async def _guarded(self, work: Any) -> Any:
        """A failing store stops the workflow at once (no retry); `exec` reports it as it does locally."""
        try:
            async with heartbeating():
                return await work
        except StorageError as exc:
            self.storage_error = exc
            raise ApplicationError(str(exc), type="StorageError", non_retryable=True) from None

    @activity.defn(name="store_load_progress")
    async def load_progress(self) -> dict[str, TeamProgress]:
        return cast(
            dict[str, TeamProgress], await self._guarded(self.engine._load_progress(self.execution_id))
        )

    @activity.defn(name="store_begin_round")
    async def begin_round(self, begin: BeginRound) -> RoundBegun:
        async def work() -> RoundBegun:
            # the governor service's ledger: what every worker spent, and what was stored before
            begun = await self.steps.begin(begin.round_number, begin.pending)
            if isinstance(begun, BudgetCut):
                return RoundBegun(exceeded=begun.detail)
            for team_id in begin.pending:
                self.engine.events.emit(
                    TeamRoundStarted(
                        execution_id=self.execution_id, team_id=team_id, round_number=begin.round_number
                    )
                )
            return RoundBegun(snapshot=begun)

        return cast(RoundBegun, await self._guarded(work()))

    @activity.defn(name="store_record_team_rounds")
    async def record_team_rounds(self, results: list[TeamRoundResult]) -> None:
        """Team results the workflow batched, in one transaction; one event per team."""

        async def work() -> None:
            new: list[TeamRoundResult] = []
            for result in results:
                key = (result.outcome.team_id, result.outcome.round_number)
                status = await self._status(*key)
                stored = status is not None and status.status in ("completed", "failed", "timeout")
                if not stored and key not in self._saved:
                    new.append(result)
            await self._apply(new)
            self._saved.update((r.outcome.team_id, r.outcome.round_number) for r in new)
            for result in results:
                self.engine.events.emit(TeamRoundFinished.of(result.outcome))

        await self._guarded(work())

    @activity.defn(name="store_judge_round")
    async def judge_round(self, ask: JudgeRound) -> list[JudgeResult]:
        """A round's judgments, made with this process's governor and stored as the local engine does; asked
        again, a team whose decision is stored answers with it."""
        n = self.engine.settings.max_concurrent_teams
        verdicts = await self._guarded(self.steps.judge(ask.round_number, ask.team_ids, n))
        return [
            JudgeResult(team_id=t, round_number=ask.round_number, budget_error=v.detail)
            if isinstance(v, BudgetCut)
            else JudgeResult(team_id=t, round_number=ask.round_number, decision=v)
            for t, v in cast(dict[str, Verdict], verdicts).items()
        ]

    async def _stored_decision(self, team_id: str, round_number: int) -> RoundDecision | None:
        status = await self._status(team_id, round_number)
        return status.decision if status else None

    @activity.defn(name="store_report_usage")
    async def report_usage(self, round_number: int) -> None:
        await self._guarded(self.steps.report_usage(round_number))

    @activity.defn(name="store_finish")
    async def finish(self, end: FinishInput) -> ExecutionSummary:
        """The local engine's end, with its rounds and duration as it counts them, not the workflow's
        `rounds_run` and `started_at`: a workflow may outlive the processes that served it."""
        stop = (cast(StopReason, end.stop_reason), end.stop_detail)
        summary = self.engine._finish(self.execution_id, self.user_prompt, end.progress, stop)
        return cast(ExecutionSummary, await self._guarded(summary))

    async def _status(self, team_id: str, round_number: int) -> RoundStatusRecord | None:
        """The round's status as stored before this process began serving the execution."""
        if self._before is None:
            statuses = await self.engine.store.get_round_statuses(self.execution_id)
            self._before = {(s.team_id, s.round_number): s for s in statuses}
        return self._before.get((team_id, round_number))

    async def _apply(self, results: Sequence[TeamRoundResult]) -> None:
        """The results' writes, in their order, submitted together: the store's write queue commits them in
        one transaction (a write awaited before the next is submitted would take one each)."""
        pending = [w for r in results for w in self._writes(RoundWrites.unpack(r.writes))]
        outcomes = await asyncio.gather(*pending, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    def _writes(self, recorded: RoundWrites) -> list[Coroutine[Any, Any, None]]:
        """One result's store writes, not yet submitted."""
        store = self.engine.store
        pending = [write.apply(store) for write in recorded.writes]
        unsaved = recorded.unsaved_calls
        if unsaved:
            pending.append(store.record_model_calls(self.execution_id, [c.model_dump() for c in unsaved]))
        return pending
