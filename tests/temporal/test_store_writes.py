"""A worker's recorded store writes cross Temporal's data converter and store what direct writes store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter

from mixseek.orchestrator.temporal.messages import JudgeResult, RecordingStore, RoundWrites, TeamRoundResult
from mixseek.round_controller.models import RoundOutcome
from mixseek.storage import AggregationStore
from mixseek.storage.models import RoundDecision, RoundKey, RoundRecord
from mixseek.storage.protocol import RoundWriter

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
SAVED = RoundKey("exec-1", "alpha", 1)
FAILED = RoundKey("exec-1", "beta", 1)
DECISION = RoundDecision(should_continue=False, reason="judgment", confidence=0.8, reasoning="頭打ち")


def call(team_id: str, site: str, tokens: int) -> dict[str, Any]:
    return {
        "team_id": team_id,
        "round_number": 1,
        "site": site,
        "model": "script:m",
        "requests": 1,
        "input_tokens": tokens,
        "output_tokens": 1,
        "cost": None,
        "created_at": T0,
    }


async def write_round(store: RoundWriter) -> None:
    record = RoundRecord(
        execution_id=SAVED.execution_id,
        team_id=SAVED.team_id,
        team_name="Alpha",
        round_number=1,
        submission_content="答え",
        evaluation_score=61.5,
        started_at=T0,
        ended_at=T0,
    )
    await store.save_round(record, model_calls=[call("alpha", "leader", 10)])
    await store.update_judgment(SAVED, DECISION, model_calls=[call("alpha", "judgment", 20)])
    await store.mark_round_failed(
        FAILED, "timeout", "timed out", ended_at=T0, model_calls=[call("beta", "leader", 30)]
    )


def converted(value: Any) -> Any:
    """`value` as the other side of Temporal receives it."""
    converter = pydantic_data_converter.payload_converter
    return converter.from_payloads(converter.to_payloads([value]), [type(value)])[0]


async def stored(db: Path) -> tuple[list[Any], list[Any], Any]:
    store = AggregationStore(db)
    try:
        board = [
            (r.team_id, r.round_number, r.evaluation_score) for r in await store.get_leader_board("exec-1")
        ]
        return await store.get_round_statuses("exec-1"), board, await store.get_usage_by_site("exec-1")
    finally:
        await store.aclose()


async def test_recorded_writes_store_what_direct_writes_store(tmp_path: Path) -> None:
    direct, replayed = AggregationStore(tmp_path / "direct.db"), AggregationStore(tmp_path / "replayed.db")
    for store in (direct, replayed):
        await store.create_execution("exec-1", "課題", {})
    await write_round(direct)
    recording = RecordingStore()
    await write_round(recording)
    outcome = RoundOutcome(
        execution_id="exec-1", team_id="alpha", team_name="Alpha", round_number=1, status="completed",
        started_at=T0, ended_at=T0,
    )  # fmt: skip
    result = converted(TeamRoundResult(outcome=outcome, writes=RoundWrites(writes=recording.writes).pack()))
    for write in RoundWrites.unpack(result.writes).writes:
        await write.apply(replayed)
    await direct.aclose()
    await replayed.aclose()

    statuses, board, usage = await stored(tmp_path / "replayed.db")
    assert (statuses, board, usage) == await stored(tmp_path / "direct.db")
    judged = {s.team_id: s for s in statuses}["alpha"]
    assert (judged.should_continue, judged.exit_reason, judged.judgment_confidence) == (
        False,
        "judgment",
        0.8,
    )
    assert {s.team_id: s.status for s in statuses} == {"alpha": "completed", "beta": "timeout"}
    assert sorted(usage) == ["judgment", "leader"]


def test_a_judgment_crosses_the_data_converter() -> None:
    sent = JudgeResult(team_id="alpha", round_number=2, decision=DECISION)
    received = converted(sent)
    assert received == sent
    assert isinstance(received.decision, RoundDecision) and received.decision.exit_reason == "judgment"


def test_a_decision_to_go_on_has_no_exit_reason() -> None:
    assert RoundDecision(should_continue=True, reason="min_rounds").exit_reason is None
    assert RoundDecision(should_continue=False, reason="max_rounds").exit_reason == "max_rounds"
    with pytest.raises(ValueError, match=r"confidence must be within 0\.\.1, got -0\.1"):
        RoundDecision(should_continue=True, reason="judgment", confidence=-0.1)
