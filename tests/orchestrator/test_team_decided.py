"""`TeamDecided` is the round's `RoundDecision` with where and when: its JSONL line keeps its keys."""

from __future__ import annotations

from mixseek.orchestrator.events import TeamDecided, parse_event
from mixseek.storage.models import RoundDecision, RoundKey


def test_the_event_of_a_decision_is_that_decision_with_its_round() -> None:
    decision = RoundDecision(should_continue=False, reason="judgment", confidence=0.7, reasoning="十分")
    event = TeamDecided.of(RoundKey("exec-1", "alpha", 3), decision)

    line = event.as_dict()
    assert list(line) == [
        "at",
        "kind",
        "execution_id",
        "team_id",
        "round_number",
        "should_continue",
        "reason",
        "confidence",
        "reasoning",
    ]
    assert (line["team_id"], line["round_number"], line["reason"]) == ("alpha", 3, "judgment")
    assert parse_event(line) == event
    assert RoundDecision.model_validate(event.model_dump(include=set(RoundDecision.model_fields))) == decision
    assert event.exit_reason == "judgment"
