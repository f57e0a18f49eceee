"""Running or resuming an execution with the local driver of the round protocol, from the stored progress
(so both take one path); the process holding its lease (`storage.lease`) is the only one writing."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import mixseek.orchestrator.collector as collector
import mixseek.telemetry as telemetry
from mixseek.config.bundle import ExecutionConfig
from mixseek.config.evaluator import stored_scale
from mixseek.config.loader import Loaded
from mixseek.config.orchestrator import NOT_COMPARED, OrchestratorSettings
from mixseek.errors import InputError, RuntimeFailure, describe_exception
from mixseek.llm.demo_model import mentions_demo_model
from mixseek.llm.model_string import teams_using
from mixseek.llm.retrying import RetryTiming
from mixseek.llm.usage import usage_from_dict
from mixseek.orchestrator.components import build_components
from mixseek.orchestrator.events import (
    EventBus,
    EventSink,
    ExecutionFinished,
    ExecutionResumed,
    ExecutionStarted,
    ExecutionStopping,
)
from mixseek.orchestrator.local_rounds import LocalRounds
from mixseek.orchestrator.models import (
    BestSubmission,
    ExecutionSummary,
    StopReason,
    TeamSummary,
    degraded_reasons,
)
from mixseek.orchestrator.pairwise import Entrant, PairwiseStage
from mixseek.orchestrator.pairwise_judge import PairwiseJudge, build_pairwise_judge
from mixseek.orchestrator.progress import (
    TeamProgress,
    final_status,
    interrupted,
    load_progress,
    rounds_scored,
    team_summaries,
)
from mixseek.orchestrator.round_protocol import RoundProtocol, Stop, drive
from mixseek.orchestrator.round_steps import RoundSteps
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.errors import RecordNotFoundError, StorageError
from mixseek.storage.lease import HEARTBEAT_SECONDS, ExecutionOwnedError, ExecutionOwner
from mixseek.storage.models import RoundKey
from mixseek.storage.pairwise_views import PairwiseView, judge_bias
from mixseek.storage.protocol import Store

RESUMABLE_STATUSES = ("running", "interrupted")

logger = logging.getLogger("mixseek.orchestrator")


def telemetry_site(loaded: Loaded[OrchestratorSettings]) -> tuple[str | None, str | None]:
    """Where `telemetry` was set, for an error about it: its environment variable, or the file's key."""
    origin = loaded.sources.get("telemetry", "")
    if origin.startswith("env "):
        return origin, None
    return (str(loaded.file) if loaded.file else None), "orchestrator.telemetry"


def new_execution_id() -> str:
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:8]}"


class Orchestrator:
    """One execution of all configured teams; models are built once, up front."""

    def __init__(
        self, config: ExecutionConfig, *, store: Store | None = None, sinks: Iterable[EventSink] = ()
    ) -> None:
        self.config = config
        self.settings = config.orchestrator.value
        self.store: Store = store or AggregationStore(config.workspace.db_path)
        self.events = EventBus(sinks)
        self._owner: ExecutionOwner | None = None
        self._lease_lost: ExecutionOwnedError | None = None
        self._heartbeat_task: asyncio.Task[None] | None = None
        # this process's active span (from creating or claiming the execution, on the monotonic
        # clock) and the active time of the processes before it: the execution's duration
        self._active_start = time.monotonic()
        self._active_before = 0.0
        # the execution's reference answer, set by `run` or read back by `resume`
        self.reference: str | None = None
        s = self.settings
        if s.telemetry_content == "off":  # for the process: a later "on" must not expose what was hidden
            telemetry.include_content(False)
        if s.telemetry != "off":  # "off" switches nothing on: see `mixseek.telemetry`
            source, key = telemetry_site(config.orchestrator)
            telemetry.configure_telemetry(s.telemetry, source=source, key=key)
        parts = build_components(config)
        self.governor = parts.governor
        self.prompt_builder = parts.prompt_builder
        self.evaluator = parts.evaluator
        self.judgment = parts.judgment
        self.teams = parts.teams
        self.parts = parts
        self.pairwise_judge: PairwiseJudge | None = None
        if config.pairwise.value.enabled:
            timing = RetryTiming(s.retry_base_delay_seconds, s.retry_max_delay_seconds)
            self.pairwise_judge = build_pairwise_judge(config.pairwise.value, self.governor, timing)

    def config_snapshot(self) -> dict[str, object]:
        """What the execution was started with; resume compares its hash with the current files."""
        data: dict[str, object] = {
            "workspace": str(self.config.workspace.root),
            "orchestrator_file": str(self.config.orchestrator.file),
            "orchestrator": self.settings.model_dump(mode="json", exclude=NOT_COMPARED),
            "teams": {e.config.team_id: e.config.model_dump(mode="json") for e in self.config.teams},
            "evaluator": self.config.evaluator.value.model_dump(mode="json"),
            "judgment": self.config.judgment.value.model_dump(mode="json"),
            # the seed's language is left out, so executions from before the key keep their hash
            "prompt_builder": self.prompt_builder.settings.model_dump(
                mode="json", exclude={"language"} if self.prompt_builder.settings.language == "ja" else None
            ),
        }
        if self.pairwise_judge is not None:  # absent when off: the hashes of earlier executions hold
            data["pairwise"] = self.config.pairwise.value.model_dump(mode="json")
        data["hash"] = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
        return data

    async def run(
        self, user_prompt: str, *, execution_id: str | None = None, reference: str | None = None
    ) -> ExecutionSummary:
        """Run a new execution of `user_prompt`; `reference` is for the reference metrics, never the teams."""
        self._check_reference(reference)
        self.reference = reference
        execution_id = execution_id or new_execution_id()
        owner = ExecutionOwner.this_process()
        # created inside the ownership: a Ctrl-C while the row is written still leaves it interrupted
        async with self._ownership(execution_id, owner):
            self._active_start, self._active_before = time.monotonic(), 0.0
            try:
                await self.store.create_execution(
                    execution_id, user_prompt, self.config_snapshot(), owner=owner, reference=reference
                )
            except Exception:
                # asked only once the write failed: a run opens the store no more often than before
                if await self.store.get_execution(execution_id) is not None:
                    raise InputError(
                        f"execution_id: '{execution_id}' exists already in {self.store.location}"
                    ) from None
                raise
            self.events.emit(
                ExecutionStarted(
                    execution_id=execution_id, teams=list(self.teams), max_rounds=self.settings.max_rounds
                )
            )
            summary = await self._traced_drive(execution_id, user_prompt, resumed=False)
        return summary

    async def resume(self, execution_id: str) -> ExecutionSummary:
        record = await self.store.get_execution(execution_id)
        if record is None:
            raise InputError(f"--resume: no execution '{execution_id}' in {self.store.location}")
        if record.status not in RESUMABLE_STATUSES:
            raise InputError(
                f"--resume: execution '{execution_id}' is {record.status}; only running or "
                "interrupted executions can be resumed"
            )
        self._check_reference(record.reference, resuming=execution_id)
        self.reference = record.reference
        changed = record.config.get("hash") != self.config_snapshot()["hash"]
        owner = ExecutionOwner.this_process()
        async with self._ownership(execution_id, owner):
            self._active_start = time.monotonic()
            try:
                self._active_before = await self.store.claim_execution(execution_id, owner)
            except (ExecutionOwnedError, RecordNotFoundError) as exc:  # run by another process, or ended
                raise InputError(f"--resume: {exc}") from None
            spent = await self.store.get_usage_totals(execution_id)
            self.governor.ledger.preload(usage_from_dict(spent.model_dump()))
            self.events.emit(ExecutionResumed(execution_id=execution_id, config_changed=changed or None))
            summary = await self._traced_drive(execution_id, record.user_prompt, resumed=True)
        return summary

    def _check_reference(self, reference: str | None, *, resuming: str | None = None) -> None:
        """A blank reference, or none for a metric that needs one, is refused before anything runs."""
        if reference is not None and not reference.strip():
            raise InputError("--reference: must not be empty")
        needing = self.evaluator.reference_metrics
        if reference is None and needing:
            names = ", ".join(f"'{name}'" for name in needing)
            if resuming is not None:
                raise InputError(
                    f"--resume: execution '{resuming}' has no reference answer, which metric {names} needs"
                )
            raise InputError(
                f"--reference: metric {names} compares submissions with a reference answer; "
                "give one with --reference TEXT or --reference-file PATH"
            )

    @asynccontextmanager
    async def _ownership(self, execution_id: str, owner: ExecutionOwner) -> AsyncIterator[None]:
        """Keep `owner`'s lease fresh while the body runs; on an error leave the execution interrupted."""
        self._owner, self._lease_lost = owner, None
        self._heartbeat_task = asyncio.create_task(
            self._heartbeat(execution_id, owner, asyncio.current_task()), name="mixseek-heartbeat"
        )
        try:
            yield
        except BaseException:
            await self._stop_heartbeat()
            if self._lease_lost is None:
                # a no-op when the execution was finished already (its lease is gone)
                with contextlib.suppress(Exception):
                    await self.store.finish_execution(execution_id, "interrupted", None, owner=owner)
                with contextlib.suppress(Exception):
                    await self.store.aclose()
            raise
        finally:
            await self._stop_heartbeat()

    async def _stop_heartbeat(self) -> None:
        """Before the final status (a later beat finds no lease); awaited, so no renewal reopens the file."""
        task, self._heartbeat_task = self._heartbeat_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _heartbeat(
        self, execution_id: str, owner: ExecutionOwner, main: asyncio.Task[object] | None
    ) -> None:
        """Refresh the lease every HEARTBEAT_SECONDS; stop `main` if another process took it."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await self.store.renew_lease(execution_id, owner)
            except ExecutionOwnedError as exc:
                self._lease_lost = exc
                if main is not None:
                    main.cancel()
                return
            except Exception as exc:  # a busy or failing store: the next beat tries again
                logger.warning("cannot refresh the lease of %s: %s", execution_id, describe_exception(exc))

    def _round_steps(self, execution_id: str, user_prompt: str) -> RoundSteps:
        parts, config, ref = self.parts, self.config, self.reference
        return RoundSteps(
            execution_id=execution_id,
            store=self.store,
            governor=self.governor,
            events=self.events,
            controller_for=lambda t: parts.controller(config, self.store, execution_id, user_prompt, t, ref),
            min_rounds=self.settings.min_rounds,
            max_rounds=self.settings.max_rounds,
        )

    def _protocol(self, progress: dict[str, TeamProgress], from_round: int = 1) -> RoundProtocol:
        s = self.settings
        return RoundProtocol(list(self.teams), progress, s.max_rounds, s.max_concurrent_teams, from_round)

    async def _load_progress(self, execution_id: str) -> dict[str, TeamProgress]:
        return load_progress(
            list(self.teams),
            await self.store.get_leader_board(execution_id),
            await self.store.get_round_statuses(execution_id),
        )

    async def _traced_drive(self, execution_id: str, user_prompt: str, *, resumed: bool) -> ExecutionSummary:
        """`_drive` in the execution's span; the spans are exported before the summary is returned."""
        try:
            with telemetry.span(
                "mixseek.execution",
                execution_id=execution_id,
                resumed=resumed,
                teams=len(self.teams),
                max_rounds=self.settings.max_rounds,
            ) as span:
                with collector.fewer_collections():
                    summary = await self._drive(execution_id, user_prompt)
                best = summary.best
                telemetry.record(
                    span,
                    status=summary.status,
                    stop_reason=summary.stop_reason,
                    rounds=summary.rounds_run,
                    best_team_id=best.team_id if best else None,
                    best_score=best.score if best else None,
                    cost_usd=summary.cost_usd,
                    **telemetry.usage(summary.usage),
                )
                return summary
        finally:
            await telemetry.flush()

    async def _drive(self, execution_id: str, user_prompt: str) -> ExecutionSummary:
        progress = await self._load_progress(execution_id)
        rounds = LocalRounds(self._round_steps(execution_id, user_prompt))
        stop: Stop
        try:
            async with asyncio.timeout(self.settings.execution_timeout_seconds):
                with rounds:
                    stop = await drive(self._protocol(progress).steps(), rounds.perform)
        except TimeoutError:
            stop = (
                "execution_timeout",
                f"execution timeout of {self.settings.execution_timeout_seconds:g} s",
            )
        except asyncio.CancelledError:
            await rounds.steps.flush_usage()
            if self._lease_lost is not None:
                await self.store.aclose()
                raise RuntimeFailure(f"stopped without finishing: {self._lease_lost}") from None
            await self._finish(execution_id, user_prompt, progress, interrupted(progress))
            await self.store.aclose()
            raise
        await rounds.steps.flush_usage()
        try:
            summary = await self._finish(execution_id, user_prompt, progress, stop)
        except BaseException:
            with contextlib.suppress(Exception):  # what failed first is what is reported
                await self.store.aclose()
            raise
        await self._release_store(execution_id)
        return summary

    async def _release_store(self, execution_id: str) -> None:
        """Release the file for readers at once; the final status is stored: a failed close is only logged."""
        try:
            await self.store.aclose()
        except StorageError as exc:
            logger.warning("execution %s is stored; closing its store failed: %s", execution_id, exc)

    async def _flush_usage(self, execution_id: str) -> None:
        await self.store.record_model_calls(execution_id, self.governor.ledger.take_unsaved_rows())

    async def _pairwise_stage(
        self, execution_id: str, user_prompt: str, stop: StopReason, best_rounds: dict[str, int]
    ) -> PairwiseView | None:
        """The pairwise ranking of the teams' best submissions, when enabled and not interrupted."""
        if self.pairwise_judge is None or stop == "interrupted":
            return None
        settings = self.config.pairwise.value
        if stop not in ("finished", "budget"):
            model = settings.model if isinstance(settings.model, str) else type(settings.model).__name__
            return PairwiseView(
                status="skipped",
                detail=f"the rounds stopped: {stop}",
                model=model,
                schedule=settings.schedule,
            )
        ranking = await self.store.get_ranking(execution_id)
        finals = {
            (row.team_id, row.round_number): row.submission_content
            for row in await self.store.get_leader_board(execution_id)
        }
        entrants = [
            Entrant(e.team_id, e.team_name, best, finals[(e.team_id, best)], place)
            for place, e in enumerate(ranking, start=1)
            if (best := best_rounds.get(e.team_id)) is not None and (e.team_id, best) in finals
        ]
        stage = PairwiseStage(
            settings,
            self.pairwise_judge,
            store=self.store,
            governor=self.governor,
            events=self.events,
            concurrency=self.settings.max_concurrent_teams,
        )
        try:
            view = await stage.run(execution_id, user_prompt, entrants)
            teams = {e.config.team_id: e.config.model_dump(mode="json") for e in self.config.teams}
            lengths = {key: len(text) for key, text in finals.items()}
            bias = judge_bias(view.comparisons, view.ranking, lengths, teams_using(view.model, teams))
            return view.model_copy(update={"bias": bias}) if view.comparisons else view
        finally:
            # what a cut comparison spent is stored too, also when the stage is interrupted
            await self._flush_usage(execution_id)

    async def _finish(
        self,
        execution_id: str,
        user_prompt: str,
        progress: dict[str, TeamProgress],
        stop: tuple[StopReason, str | None],
    ) -> ExecutionSummary:
        """Final rounds, pairwise stage, summary, final status; teams an interrupt cut off stay resumable."""
        self.events.emit(ExecutionStopping(execution_id=execution_id, reason=stop[0], detail=stop[1]))
        cut = {t for t, team in progress.items() if stop[0] == "interrupted" and not team.ended}
        best_rounds = {t: team.best_round() for t, team in progress.items() if team.completed}
        finals = {t: r for t, r in best_rounds.items() if t not in cut}
        # all at once: the store writes them in one transaction
        await asyncio.gather(*(self.store.mark_final(RoundKey(execution_id, *f)) for f in finals.items()))
        pairwise = await self._pairwise_stage(execution_id, user_prompt, stop[0], best_rounds)
        names = {t: team.config.team_name for t, team in self.teams.items()}
        teams = team_summaries(progress, names, stop[0], cut)
        summary = await self._summary(execution_id, user_prompt, stop, teams, rounds_scored(progress))
        summary.pairwise = pairwise
        await self._stop_heartbeat()
        await self.store.finish_execution(
            execution_id, summary.status, summary.model_dump(mode="json"), owner=self._owner
        )
        best = summary.best
        self.events.emit(
            ExecutionFinished(
                execution_id=execution_id,
                status=summary.status,
                best_team=best.team_id if best else None,
                best_score=best.score if best else None,
            )
        )
        return summary

    async def _summary(
        self,
        execution_id: str,
        user_prompt: str,
        stop: tuple[StopReason, str | None],
        teams: list[TeamSummary],
        rounds_run: int,
    ) -> ExecutionSummary:
        """The execution's summary as the store has it now."""
        ranking = await self.store.get_ranking(execution_id)
        rows = await self.store.get_leader_board(execution_id) if ranking else []
        totals = await self.store.get_usage_totals(execution_id)
        return ExecutionSummary(
            execution_id=execution_id,
            user_prompt=user_prompt,
            status=final_status(teams, stop[0]),
            stop_reason=stop[0],
            stop_detail=stop[1],
            best=BestSubmission.from_board(ranking, rows),
            leaderboard=ranking,
            teams=teams,
            rounds_run=rounds_run,
            usage=totals,
            usage_by_site=await self.store.get_usage_by_site(execution_id),
            cost_usd=totals.cost,
            duration_seconds=round(self._active_before + time.monotonic() - self._active_start, 3),
            degraded_reasons=degraded_reasons(await self.store.get_round_statuses(execution_id)),
            demo_model=mentions_demo_model(self.config_snapshot()),
            scale=str(stored_scale(self.config_snapshot().get("evaluator"))),
        )
