"""A decision stored with a round reads back as the `RoundDecision` a resumed execution goes on from."""

from __future__ import annotations

from mixseek.storage import AggregationStore
from mixseek.storage.models import RoundDecision, RoundKey, RoundStatusRecord

from .support import ended, record, started


async def test_a_stored_decision_reads_back_as_it_was_made(store: AggregationStore) -> None:
    stop = RoundDecision(should_continue=False, reason="max_rounds")
    judged = RoundDecision(should_continue=True, reason="judgment", confidence=0.6, reasoning="伸びしろ")
    for team_id in ("team-a", "team-b", "team-c"):
        await store.save_round(record(team_id, 1))
    await store.update_judgment(RoundKey("exec-1", "team-a", 1), stop)
    await store.update_judgment(RoundKey("exec-1", "team-b", 1), judged)

    decisions = {s.team_id: s.decision for s in await store.get_round_statuses("exec-1")}
    assert decisions == {"team-a": stop, "team-b": judged, "team-c": None}


def test_an_exit_reason_in_other_words_reads_as_a_judgment() -> None:
    """Imported history keeps its own exit reasons; a resume reads them as the judgment's."""
    status = RoundStatusRecord(
        execution_id="exec-1",
        team_id="team-a",
        round_number=2,
        status="completed",
        started_at=started(2),
        ended_at=ended(2),
        should_continue=False,
        judgment_reasoning="converged",
        judgment_confidence=None,
        exit_reason="quality_reached",
        error_message=None,
    )
    assert status.decision == RoundDecision(should_continue=False, reason="judgment", reasoning="converged")
