"""Pairwise rows in the store (schema migration 5) and the read model over them."""

from __future__ import annotations

from pathlib import Path

from e2e.db import rows
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.pairwise_views import PairwiseComparison, PairwiseStanding

COMPARISON = PairwiseComparison(
    sequence=1,
    team_a="a",
    team_b="b",
    round_a=2,
    round_b=1,
    verdict_a_first="A",
    verdict_b_first="A",
    outcome=0.5,
    reasoning_a_first="first",
    reasoning_b_first="second",
)
CALL = {"site": "pairwise judge", "model": "m", "requests": 1, "input_tokens": 5, "output_tokens": 2}


async def test_a_comparison_is_stored_once_with_its_usage(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with AggregationStore(db) as store:
        await store.create_execution("e1", "task", {"pairwise": {"model": "m", "schedule": "swiss"}})
        await store.save_pairwise_comparison("e1", COMPARISON, model_calls=[CALL, CALL])
        # a repeated write (a retried activity) leaves the stored comparison as it was
        await store.save_pairwise_comparison("e1", COMPARISON.model_copy(update={"outcome": 1.0}))
        assert await store.get_pairwise_comparisons("e1") == [COMPARISON]
        view = await store.get_execution_view("e1")
        assert view is not None and view.pairwise is not None
        # no summary yet: how it went comes from its settings and the execution's status
        assert (view.pairwise.status, view.pairwise.model, view.pairwise.schedule) == (
            "running",
            "m",
            "swiss",
        )
        standing = PairwiseStanding(
            rank=1, team_id="a", team_name="A", strength=0.0, ci_low=-1.0, ci_high=1.0, wins=0.5, matches=1
        )
        await store.save_pairwise_ranking("e1", [standing])
        await store.save_pairwise_ranking("e1", [standing])  # replaced, not added
        await store.finish_execution("e1", "interrupted", None)
        view = await store.get_execution_view("e1")
        assert view is not None and view.pairwise is not None
        assert view.pairwise.status == "interrupted"
        assert view.pairwise.ranking == [standing]
        await store.create_execution("e2", "task", {})
        other = await store.get_execution_view("e2")
        assert other is not None and other.pairwise is None
    assert rows(db, "SELECT sum(requests), sum(input_tokens) FROM model_calls") == [(2, 10)]
    assert rows(db, "SELECT count(*) FROM pairwise_ranking") == [(1,)]
