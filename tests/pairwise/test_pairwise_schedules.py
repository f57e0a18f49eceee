"""The pairwise stage's schedules on a real store: exact model calls, pairs chosen, resuming.

Teams t1..tN are given best score first; the scripted judge prefers the lower number, so the
Bradley–Terry ranking must come out t1, t2, ... whatever pairs the schedule chose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pairwise_script import ScriptedJudge, prefers

from mixseek.config.pairwise import PairwiseSettings
from mixseek.llm import override_models
from mixseek.llm.governor import Budget, Governor, ModelLimit
from mixseek.llm.retrying import RetryTiming
from mixseek.orchestrator.events import Event, EventBus, PairwiseCompared
from mixseek.orchestrator.pairwise import Entrant, PairwiseStage
from mixseek.orchestrator.pairwise_judge import build_pairwise_judge, swap_outcome
from mixseek.orchestrator.pairwise_schedule import round_robin, swiss_round
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.pairwise_views import PairwiseView

EXECUTION = "exec-pairwise"


def teams(n: int) -> list[str]:
    return [f"t{i}" for i in range(1, n + 1)]


async def run_stage(
    db: Path,
    n: int,
    judge: ScriptedJudge,
    budget: Budget | None = None,
    concurrency: int = 3,
    **settings: Any,
) -> tuple[PairwiseView, list[Event]]:
    config = PairwiseSettings(enabled=True, model="script:pairwise", bootstrap_samples=100, **settings)
    governor = Governor(budget or Budget(), ModelLimit(8, None))
    events: list[Event] = []
    store = AggregationStore(db)
    if await store.get_execution(EXECUTION) is None:
        await store.create_execution(EXECUTION, "task", {})
    with override_models({"script:pairwise": judge.model()}):
        stage = PairwiseStage(
            config,
            build_pairwise_judge(config, governor, RetryTiming(0.01, 0.05)),
            store=store,
            governor=governor,
            events=EventBus([events.append]),
            concurrency=concurrency,
        )
        entrants = [Entrant(t, t.upper(), 1, f"{t} answer v1", i) for i, t in enumerate(teams(n), start=1)]
        view = await stage.run(EXECUTION, "task", entrants)
    await store.aclose()
    return view, events


def pairs_of(view: PairwiseView) -> list[tuple[str, str]]:
    return [(c.team_a, c.team_b) for c in view.comparisons]


@pytest.mark.parametrize(
    ("n", "settings", "comparisons"),
    [
        (6, {"schedule": "round_robin"}, 15),
        (6, {"schedule": "round_robin", "max_comparisons": 4}, 4),
        (6, {"schedule": "top_k", "top_k": 4}, 6),
        (6, {"schedule": "top_k", "top_k": 4, "max_comparisons": 5}, 5),
        (3, {"schedule": "top_k", "top_k": 8}, 3),
        (6, {"schedule": "swiss", "max_comparisons": 7}, 7),
        (8, {"schedule": "swiss"}, 12),  # ceil(log2 8) = 3 rounds of 4
        (5, {"schedule": "swiss", "max_comparisons": 100}, 10),  # every pair, then no new one
    ],
)
async def test_model_calls_are_exactly_two_per_comparison(
    tmp_path: Path, n: int, settings: dict[str, Any], comparisons: int
) -> None:
    judge = ScriptedJudge(prefers(teams(n)))
    view, _ = await run_stage(tmp_path / "s.db", n, judge, **settings)
    assert len(judge.shown) == 2 * comparisons
    assert view.done == comparisons and view.status == "completed"
    assert PairwiseSettings(**settings).comparisons_for(n) == comparisons
    assert len({frozenset(p) for p in pairs_of(view)}) == comparisons  # no pair twice
    # each comparison is shown once in each order
    assert sorted(judge.shown) == sorted([*pairs_of(view), *((b, a) for a, b in pairs_of(view))])
    if comparisons == n * (n - 1) // 2 or settings["schedule"] == "swiss":
        assert view.ranking[0].team_id == "t1"
    if comparisons == n * (n - 1) // 2:
        assert [s.team_id for s in view.ranking] == teams(n)


async def test_top_k_compares_only_the_best_by_score(tmp_path: Path) -> None:
    view, _ = await run_stage(
        tmp_path / "s.db", 6, ScriptedJudge(prefers(teams(6))), schedule="top_k", top_k=3
    )
    assert sorted(pairs_of(view)) == [("t1", "t2"), ("t1", "t3"), ("t2", "t3")]
    # the teams outside the top K were never compared: they are not in the pairwise ranking
    assert [(s.team_id, s.matches, s.wins) for s in view.ranking] == [
        ("t1", 2, 2),
        ("t2", 2, 1),
        ("t3", 2, 0),
    ]


async def test_swiss_pairs_neighbours_in_the_standing(tmp_path: Path) -> None:
    view, _ = await run_stage(tmp_path / "s.db", 8, ScriptedJudge(prefers(teams(8))), schedule="swiss")
    assert pairs_of(view) == [
        # round 1 by score; round 2: winners meet winners; round 3: the two unbeaten meet
        ("t1", "t2"), ("t3", "t4"), ("t5", "t6"), ("t7", "t8"),
        ("t1", "t3"), ("t5", "t7"), ("t2", "t4"), ("t6", "t8"),
        ("t1", "t5"), ("t2", "t3"), ("t6", "t7"), ("t4", "t8"),
    ]  # fmt: skip
    assert view.ranking[0].team_id == "t1"


async def test_a_resumed_stage_asks_only_for_what_is_missing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first = ScriptedJudge(prefers(teams(4)))
    cut, _ = await run_stage(db, 4, first, schedule="round_robin", max_comparisons=2)
    assert len(first.shown) == 4
    again = ScriptedJudge(prefers(teams(4)))
    full, events = await run_stage(db, 4, again, schedule="round_robin")
    assert full.comparisons[:2] == cut.comparisons
    assert len(again.shown) == 2 * (6 - 2)
    assert [e.done for e in events if isinstance(e, PairwiseCompared)] == [3, 4, 5, 6]
    nothing = ScriptedJudge(prefers(teams(4)))
    same, _ = await run_stage(db, 4, nothing, schedule="round_robin")
    assert nothing.shown == [] and same.ranking == full.ranking


async def test_the_budget_stops_the_stage_cleanly(tmp_path: Path) -> None:
    judge = ScriptedJudge(prefers(teams(4)))
    # one comparison at a time, so which request the budget stops does not depend on timing
    view, _ = await run_stage(
        tmp_path / "s.db", 4, judge, Budget(max_requests=5), concurrency=1, schedule="round_robin"
    )
    assert view.status == "budget"
    assert view.detail is not None and "max_requests" in view.detail
    # 5 requests: two whole comparisons stored; the fifth request's comparison is left out
    assert len(judge.shown) == 5 and view.done == 2
    assert sum(s.matches for s in view.ranking) == 4


def test_swap_outcome_counts_only_a_preference_that_survives_the_swap() -> None:
    assert swap_outcome("A", "B") == 1.0  # a first: a; b first: a (shown as B)
    assert swap_outcome("B", "A") == 0.0
    assert swap_outcome("A", "A") == 0.5  # position bias
    assert swap_outcome("B", "B") == 0.5
    assert swap_outcome("A", "tie") == 0.5
    assert swap_outcome("tie", "tie") == 0.5


def test_a_cut_round_robin_spreads_matches_over_the_teams() -> None:
    pairs = round_robin(teams(8))
    assert len(pairs) == 28 and len({frozenset(p) for p in pairs}) == 28
    first_round = pairs[:4]
    assert sorted(t for p in first_round for t in p) == sorted(teams(8))
    assert round_robin(teams(3))[0] == ("t1", "t2")  # the two best meet first


def test_swiss_round_falls_back_to_the_closest_unmet_pair() -> None:
    met = {frozenset(("a", "b")), frozenset(("c", "d")), frozenset(("a", "c"))}
    # greedy: a meets d (b and c met), then b meets c
    assert swiss_round(["a", "b", "c", "d"], {}, met) == [("a", "d"), ("b", "c")]
    met |= {frozenset(("a", "d")), frozenset(("b", "c"))}
    assert swiss_round(["a", "b", "c", "d"], {}, met) == [("b", "d")]
    met.add(frozenset(("b", "d")))
    assert swiss_round(["a", "b", "c", "d"], {}, met) == []
