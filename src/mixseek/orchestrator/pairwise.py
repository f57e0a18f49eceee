"""The optional final stage: the teams' best submissions compared in pairs (in both orders: more reliable than
one judge's absolute scores), ranked by Bradley–Terry. Each pair is stored with the usage that paid for it, so
a resumed stage asks only for what is missing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, field
from functools import partial
from typing import Any

from pydantic_ai import UsageLimitExceeded

from mixseek.config.pairwise import PairwiseSettings, swiss_rounds
from mixseek.errors import describe_exception
from mixseek.llm.governor import Governor
from mixseek.llm.usage import usage_from_dict
from mixseek.orchestrator.events import EventBus, PairwiseCompared, PairwiseFinished, PairwiseStarted
from mixseek.orchestrator.pairwise_judge import PairwiseJudge, PairwiseJudgeError, swap_outcome
from mixseek.orchestrator.pairwise_schedule import Pair, round_robin, swiss_round, top_k
from mixseek.storage.pairwise_views import (
    PairwiseComparison,
    PairwiseStanding,
    PairwiseStatus,
    PairwiseView,
    pairwise_standings,
)
from mixseek.storage.protocol import Store

_Play = Callable[[Sequence[Pair], int], Awaitable[None]]


@dataclass(frozen=True)
class Entrant:
    """A team's best submission, and the team's place by score."""

    team_id: str
    team_name: str
    round_number: int
    content: str
    score_rank: int


@dataclass
class _Progress:
    stored: dict[frozenset[str], PairwiseComparison]
    planned: int
    status: PairwiseStatus = "completed"
    detail: str | None = None
    failed: int = 0
    stopped: bool = False
    errors: list[str] = field(default_factory=list)

    def stop(self, status: PairwiseStatus, detail: str) -> None:
        if not self.stopped:
            self.stopped, self.status, self.detail = True, status, detail


@dataclass
class PairwiseStage:
    settings: PairwiseSettings
    judge: PairwiseJudge
    _: KW_ONLY
    store: Store
    governor: Governor
    events: EventBus
    concurrency: InitVar[int]

    def __post_init__(self, concurrency: int) -> None:
        self.slots = asyncio.Semaphore(concurrency)

    async def run(self, execution_id: str, user_prompt: str, entrants: Sequence[Entrant]) -> PairwiseView:
        s = self.settings
        if len(entrants) < 2:
            return self._view("skipped", "fewer than two teams have a scored submission")
        await self._catch_up_ledger(execution_id)
        by_id = {e.team_id: e for e in entrants}
        teams = [e.team_id for e in entrants]
        stored = {
            frozenset((c.team_a, c.team_b)): c
            for c in await self.store.get_pairwise_comparisons(execution_id)
            if c.team_a in by_id and c.team_b in by_id
        }
        progress = _Progress(stored=stored, planned=s.comparisons_for(len(teams)))
        self.events.emit(
            PairwiseStarted(
                execution_id=execution_id,
                schedule=s.schedule,
                teams=teams,
                planned=progress.planned,
                done=len(stored),
            )
        )

        async def play(pairs: Sequence[Pair], first_sequence: int) -> None:
            await asyncio.gather(
                *(
                    self._compare(execution_id, user_prompt, by_id[a], by_id[b], first_sequence + i, progress)
                    for i, (a, b) in enumerate(pairs)
                )
            )

        if s.schedule == "swiss":
            await self._swiss(teams, progress, play)
        else:
            pairs = round_robin(teams) if s.schedule == "round_robin" else top_k(teams, s.top_k)
            await play(pairs[: progress.planned], 1)
        comparisons = sorted(progress.stored.values(), key=lambda c: (c.sequence, c.team_a, c.team_b))
        standings = self._rank(entrants, comparisons)
        await self.store.save_pairwise_ranking(execution_id, standings["ranking"])
        if progress.errors and not progress.stopped:
            progress.status = "failed"
            progress.detail = f"{progress.failed} comparison(s) failed: {progress.errors[0]}"
        view = self._view(
            progress.status,
            progress.detail,
            planned=progress.planned,
            failed=progress.failed,
            comparisons=comparisons,
            **standings,
        )
        self.events.emit(
            PairwiseFinished(
                execution_id=execution_id,
                status=view.status,
                detail=view.detail,
                comparisons=view.done,
                leader=view.ranking[0].team_id if view.ranking else None,
            )
        )
        return view

    async def _swiss(self, teams: list[str], progress: _Progress, play: _Play) -> None:
        """Rounds until the comparisons' budget (or ceil(log2 T) rounds) is spent, or every pair has met."""
        budget = self.settings.max_comparisons
        rounds = None if budget is not None else swiss_rounds(len(teams))
        played: set[frozenset[str]] = set()
        round_number = 0
        while not progress.stopped and (rounds is None or round_number < rounds):
            points = _points(teams, [progress.stored[k] for k in played])
            pairs = swiss_round(teams, points, played)
            if budget is not None:
                pairs = pairs[: budget - len(played)]
            if not pairs:
                break
            round_number += 1
            await play(pairs, len(played) + 1)
            played |= {frozenset(p) for p in pairs if frozenset(p) in progress.stored}
            if any(frozenset(p) not in progress.stored for p in pairs):
                break  # a comparison failed or the budget stopped it: the standing is incomplete

    async def _compare(
        self, execution_id: str, user_prompt: str, a: Entrant, b: Entrant, sequence: int, progress: _Progress
    ) -> None:
        key = frozenset((a.team_id, b.team_id))
        if key in progress.stored:
            return
        async with self.slots:
            if progress.stopped:
                return
            exceeded = self.governor.ledger.exceeded(self.governor.budget)
            if exceeded is not None:
                progress.stop("budget", str(exceeded))
                return
            try:
                first = await self.judge.judge(user_prompt, a.content, b.content)
                second = await self.judge.judge(user_prompt, b.content, a.content)
            except UsageLimitExceeded as exc:
                progress.stop("budget", str(exc))
                return
            except PairwiseJudgeError as exc:
                progress.failed += 1
                progress.errors.append(f"{a.team_id} vs {b.team_id}: {describe_exception(exc)}")
                return
            comparison = PairwiseComparison(
                sequence=sequence,
                team_a=a.team_id,
                team_b=b.team_id,
                round_a=a.round_number,
                round_b=b.round_number,
                verdict_a_first=first.output.winner,
                verdict_b_first=second.output.winner,
                outcome=swap_outcome(first.output.winner, second.output.winner),
                reasoning_a_first=first.output.reasoning,
                reasoning_b_first=second.output.reasoning,
            )
            await self.store.save_pairwise_comparison(
                execution_id, comparison, model_calls=self.governor.ledger.take_unsaved_rows()
            )
            progress.stored[key] = comparison
            self.events.emit(
                PairwiseCompared(
                    execution_id=execution_id,
                    team_a=a.team_id,
                    team_b=b.team_id,
                    outcome=comparison.outcome,
                    winner=comparison.winner,
                    done=len(progress.stored),
                    planned=progress.planned,
                )
            )

    def _rank(
        self, entrants: Sequence[Entrant], comparisons: Sequence[PairwiseComparison]
    ) -> dict[str, list[PairwiseStanding]]:
        """The stored `ranking` (`[pairwise] ranking` picks it) and the length-`controlled` one, of the teams
        that met at least once (one never compared has no evidence)."""
        teams = {e.team_id: (e.team_name, e.score_rank) for e in entrants}
        s = self.settings
        fit = partial(pairwise_standings, comparisons, teams, samples=s.bootstrap_samples, seed=s.seed)
        controlled = fit(texts={(e.team_id, e.round_number): e.content for e in entrants})
        plain = controlled if s.ranking == "length_controlled" else fit()
        return {"ranking": plain, "controlled": controlled}

    def _view(self, status: PairwiseStatus, detail: str | None, **counts: Any) -> PairwiseView:
        model = self.settings.model
        name = model if isinstance(model, str) else type(model).__name__
        return PairwiseView(
            status=status,
            detail=detail,
            model=name,
            schedule=self.settings.schedule,
            ranked_by=self.settings.ranking,
            **counts,
        )

    async def _catch_up_ledger(self, execution_id: str) -> None:
        """Count towards the budget what the store has and this ledger has not (a Temporal worker's)."""
        stored = await self.store.get_usage_totals(execution_id)
        total = self.governor.ledger.total
        gaps: dict[str, object] = {
            "requests": stored.requests - total.requests,
            "input_tokens": stored.input_tokens - total.input_tokens,
            "output_tokens": stored.output_tokens - total.output_tokens,
            "cost": (stored.cost or 0.0) - self.governor.ledger.cost(),
        }
        missing: dict[str, object] = {
            name: gap for name, gap in gaps.items() if isinstance(gap, int | float) and gap > 0
        }
        if missing:
            self.governor.ledger.preload(usage_from_dict(missing))


def _points(teams: Sequence[str], comparisons: Sequence[PairwiseComparison]) -> dict[str, float]:
    points = dict.fromkeys(teams, 0.0)
    for c in comparisons:
        points[c.team_a] += c.outcome
        points[c.team_b] += 1.0 - c.outcome
    return points
