"""A decision refused by the store still stored the judgment's usage: it is not stored twice."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import duckdb
import pytest
from pydantic_ai import RunUsage

from mixseek.llm.governor import Budget, Governor, ModelLimit, call_scope
from mixseek.round_controller.controller import RoundController
from mixseek.storage import AggregationStore
from mixseek.storage.errors import RecordNotFoundError
from mixseek.storage.models import RoundDecision


async def test_usage_of_a_refused_decision_is_stored_once(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    store = AggregationStore(db)
    await store.create_execution("exec-1", "課題", {})
    governor = Governor(Budget(), ModelLimit(4, None))
    with call_scope("alpha", 1):
        governor.ledger.record("judgment", "script:judge", RunUsage(requests=1, input_tokens=7))
    team = SimpleNamespace(config=SimpleNamespace(team_id="alpha"))
    controller = RoundController(
        execution_id="exec-1",
        user_prompt="課題",
        team=cast(Any, team),
        store=store,
        prompt_builder=cast(Any, None),
        evaluator=cast(Any, None),
        judgment=cast(Any, None),
        governor=governor,
    )
    decision = RoundDecision(should_continue=True, reason="judgment", reasoning="ok", confidence=0.5)
    # round 1 of alpha was never saved: the store refuses the decision but commits its usage
    with pytest.raises(RecordNotFoundError):
        await controller.record_decision(1, decision)
    # the orchestrator flushes whatever the ledger still holds after each round
    await store.record_model_calls("exec-1", governor.ledger.take_unsaved_rows())
    await store.aclose()
    with duckdb.connect(str(db), read_only=True) as conn:
        assert conn.execute("SELECT sum(requests), sum(input_tokens) FROM model_calls").fetchall() == [(1, 7)]
