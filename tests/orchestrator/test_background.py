"""Writes the round flow does not wait for still land before anything written after them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mixseek.orchestrator.background import BackgroundWrites
from mixseek.storage import AggregationStore, RecordNotFoundError, RoundRecord

AT = datetime(2025, 1, 1, tzinfo=UTC)


def record(team_id: str, round_number: int, score: float) -> RoundRecord:
    return RoundRecord(
        execution_id="exec-1",
        team_id=team_id,
        team_name=team_id,
        round_number=round_number,
        submission_content="answer",
        evaluation_score=score,
        started_at=AT,
        ended_at=AT,
    )


async def test_a_started_write_lands_before_the_next_one(tmp_path: Path) -> None:
    async with AggregationStore(tmp_path / "mixseek.db") as store:
        await store.create_execution("exec-1", "task", {})
        writes = BackgroundWrites()

        await writes.start(store.mark_round_started("exec-1", "team-a", 1))
        await store.save_round(record("team-a", 1, 40.0))  # would be overwritten by 'running' if first
        await writes.start(store.update_judgment("exec-1", "team-a", 1, True, "go on", 0.7))
        await writes.settle()

        [status] = await store.get_round_statuses("exec-1")
        assert (status.status, status.should_continue) == ("completed", True)
        assert status.judgment_reasoning == "go on"


async def test_settle_raises_what_a_write_raised(tmp_path: Path) -> None:
    async with AggregationStore(tmp_path / "mixseek.db") as store:
        await store.create_execution("exec-1", "task", {})
        writes = BackgroundWrites()
        await writes.start(store.update_judgment("exec-1", "team-x", 3, False, None, None))
        await writes.start(store.save_round(record("team-a", 1, 40.0)))

        with pytest.raises(RecordNotFoundError, match="no round 3 of team 'team-x'"):
            await writes.settle()
        assert [row.team_id for row in await store.get_leader_board("exec-1")] == ["team-a"]
        await writes.settle()  # nothing left
