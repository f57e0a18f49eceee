"""Saving rounds: one transaction over three tables, idempotent, and the per-round updates."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from mixseek.round_controller.models import RoundState
from mixseek.storage import AggregationStore, RecordNotFoundError
from mixseek.storage.models import RoundDecision, RoundKey

from .support import count_rows, ended, record, started, unchecked_record

ROUND_TABLES = ("round_history", "leader_board", "round_status", "team_standings")


async def test_save_round_writes_all_tables(store: AggregationStore) -> None:
    await store.save_round(
        record(
            "team-a",
            1,
            72.5,
            should_continue=True,
            judgment_reasoning="room to improve",
            judgment_confidence=0.8,
        )
    )

    history = await store.get_round_history(RoundKey("exec-1", "team-a", 1))
    assert history is not None
    assert history.team_name == "Team team-a"
    assert history.message_history == '[{"kind": "request", "round": 1}]'
    assert history.member_submissions_record == {"team_id": "team-a", "submissions": []}

    [row] = await store.get_leader_board("exec-1")
    assert (row.team_id, row.round_number, row.evaluation_score) == ("team-a", 1, 72.5)
    assert row.evaluation_feedback == "feedback team-a 1"
    assert row.score_details == {"clarity": 72.5}
    assert row.submission_content == "team-a submission 1"
    assert row.submission_format == "structured_json"
    assert row.usage_info == {"requests": 1}
    assert row.is_final is False

    [status] = await store.get_round_statuses("exec-1")
    assert status.status == "completed"
    assert (status.started_at, status.ended_at) == (started(1), ended(1))
    assert (status.should_continue, status.judgment_reasoning, status.judgment_confidence) == (
        True,
        "room to improve",
        0.8,
    )
    assert status.exit_reason is None
    assert status.error_message is None


async def test_message_history_bytes_are_stored_as_text(store: AggregationStore) -> None:
    await store.save_round(record(message_history=b'[{"parts": []}]'))
    history = await store.get_round_history(RoundKey("exec-1", "team-a", 1))
    assert history is not None
    assert history.message_history == '[{"parts": []}]'


async def test_failed_write_leaves_no_row_in_any_table(store: AggregationStore, db_path: Path) -> None:
    # round_history is written first, then leader_board rejects the score: all must roll back.
    with pytest.raises(duckdb.ConstraintException, match="CHECK constraint failed"):
        await store.save_round(unchecked_record(evaluation_score=float("nan")))
    store.close()
    assert {table: count_rows(db_path, table) for table in ROUND_TABLES} == dict.fromkeys(ROUND_TABLES, 0)


async def test_failed_replacement_keeps_the_previous_rows(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 40.0))
    with pytest.raises(duckdb.ConstraintException):
        await store.save_round(unchecked_record(evaluation_score=float("inf"), submission_content="bad"))

    [row] = await store.get_leader_board("exec-1")
    assert (row.evaluation_score, row.submission_content) == (40.0, "team-a submission 1")
    history = await store.get_round_history(RoundKey("exec-1", "team-a", 1))
    assert history is not None and history.message_history == '[{"kind": "request", "round": 1}]'
    assert await store.get_leader_board_ranking("exec-1") == [
        {"team_id": "team-a", "team_name": "Team team-a", "max_score": 40.0, "total_rounds": 1}
    ]


async def test_saving_the_same_round_again_replaces_it(store: AggregationStore, db_path: Path) -> None:
    await store.save_round(record("team-a", 1, 90.0))
    await store.mark_final(RoundKey("exec-1", "team-a", 1))
    await store.save_round(
        record("team-a", 1, 30.0, submission_content="second try", message_history='["again"]')
    )

    [row] = await store.get_leader_board("exec-1")
    assert (row.evaluation_score, row.submission_content, row.is_final) == (30.0, "second try", False)
    history = await store.get_round_history(RoundKey("exec-1", "team-a", 1))
    assert history is not None and history.message_history == '["again"]'
    assert await store.get_leader_board_ranking("exec-1") == [
        {"team_id": "team-a", "team_name": "Team team-a", "max_score": 30.0, "total_rounds": 1}
    ]
    store.close()
    assert {table: count_rows(db_path, table) for table in ROUND_TABLES} == dict.fromkeys(ROUND_TABLES, 1)


async def test_rounds_are_kept_apart_per_execution(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 10.0, execution_id="exec-1"))
    await store.save_round(record("team-a", 1, 20.0, execution_id="exec-2"))
    assert [r.evaluation_score for r in await store.get_leader_board("exec-1")] == [10.0]
    assert [r.evaluation_score for r in await store.get_leader_board("exec-2")] == [20.0]


async def test_leader_board_rows_are_ordered_by_round_then_team(store: AggregationStore) -> None:
    for team, number in [("team-b", 2), ("team-a", 2), ("team-b", 1), ("team-a", 1)]:
        await store.save_round(record(team, number))
    rows = await store.get_leader_board("exec-1")
    assert [(r.round_number, r.team_id) for r in rows] == [
        (1, "team-a"),
        (1, "team-b"),
        (2, "team-a"),
        (2, "team-b"),
    ]


async def test_submission_history_is_round_states_in_round_order(store: AggregationStore) -> None:
    for number, score in [(3, 60.0), (1, 40.0), (2, 55.5)]:
        await store.save_round(record("team-a", number, score))
    await store.save_round(record("team-b", 1, 99.0))

    history = await store.get_team_submission_history("exec-1", "team-a")
    assert history == [
        RoundState(
            round_number=n,
            submission_content=f"team-a submission {n}",
            evaluation_score=s,
            score_details={"clarity": s},
            evaluation_feedback=f"feedback team-a {n}",
            round_started_at=started(n),
            round_ended_at=ended(n),
        )
        for n, s in [(1, 40.0), (2, 55.5), (3, 60.0)]
    ]
    earlier = await store.get_team_submission_history("exec-1", "team-a", before_round=3)
    assert [state.round_number for state in earlier] == [1, 2]
    assert await store.get_team_submission_history("exec-1", "team-z") == []


async def test_unknown_round_history_is_none(store: AggregationStore) -> None:
    assert await store.get_round_history(RoundKey("exec-1", "team-a", 1)) is None


async def test_update_judgment(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1))
    await store.update_judgment(
        RoundKey("exec-1", "team-a", 1),
        RoundDecision(should_continue=False, reason="judgment", reasoning="converged", confidence=0.9),
    )
    [status] = await store.get_round_statuses("exec-1")
    assert (
        status.should_continue,
        status.judgment_reasoning,
        status.judgment_confidence,
        status.exit_reason,
    ) == (
        False,
        "converged",
        0.9,
        "judgment",
    )
    assert status.status == "completed"


async def test_update_judgment_of_unknown_round_raises(store: AggregationStore) -> None:
    with pytest.raises(RecordNotFoundError, match="no round 4 of team 'team-a' in 'exec-1'"):
        await store.update_judgment(
            RoundKey("exec-1", "team-a", 4),
            RoundDecision(should_continue=True, reason="judgment", reasoning="why", confidence=0.5),
        )


async def test_update_judgment_rejects_confidence_outside_unit_range(store: AggregationStore) -> None:
    with pytest.raises(ValueError, match=r"confidence must be within 0\.\.1, got 1\.5"):
        await store.update_judgment(
            RoundKey("exec-1", "team-a", 1),
            RoundDecision(should_continue=True, reason="judgment", reasoning="why", confidence=1.5),
        )


async def test_round_started_then_failed(store: AggregationStore) -> None:
    await store.mark_round_started(RoundKey("exec-1", "team-a", 2), started_at=started(2))
    [running] = await store.get_round_statuses("exec-1")
    assert (running.status, running.started_at, running.ended_at) == ("running", started(2), None)

    await store.mark_round_failed(
        RoundKey("exec-1", "team-a", 2), "timeout", "exceeded 300 s", ended_at=ended(2)
    )
    [failed] = await store.get_round_statuses("exec-1")
    assert (failed.status, failed.started_at, failed.ended_at, failed.error_message) == (
        "timeout",
        started(2),
        ended(2),
        "exceeded 300 s",
    )
    assert await store.get_leader_board("exec-1") == []


async def test_round_failed_without_a_start(store: AggregationStore) -> None:
    await store.mark_round_failed(
        RoundKey("exec-1", "team-b", 1), "failed", "leader crashed", ended_at=ended(1)
    )
    [status] = await store.get_round_statuses("exec-1")
    assert (status.team_id, status.status, status.started_at, status.error_message) == (
        "team-b",
        "failed",
        None,
        "leader crashed",
    )


async def test_round_failed_rejects_other_statuses(store: AggregationStore) -> None:
    with pytest.raises(ValueError, match="status must be 'failed' or 'timeout', got 'completed'"):
        await store.mark_round_failed(RoundKey("exec-1", "team-a", 1), "completed", "x")  # type: ignore[arg-type]


async def test_mark_final_flags_one_round_per_team(store: AggregationStore) -> None:
    for number in (1, 2, 3):
        await store.save_round(record("team-a", number))
    await store.save_round(record("team-b", 1))
    await store.mark_final(RoundKey("exec-1", "team-b", 1))
    await store.mark_final(RoundKey("exec-1", "team-a", 3))
    await store.mark_final(RoundKey("exec-1", "team-a", 2))
    rows = await store.get_leader_board("exec-1")
    assert [(r.team_id, r.round_number, r.is_final) for r in rows] == [
        ("team-a", 1, False),
        ("team-b", 1, True),
        ("team-a", 2, True),
        ("team-a", 3, False),
    ]


async def test_mark_final_of_unknown_round_changes_nothing(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1))
    await store.mark_final(RoundKey("exec-1", "team-a", 1))
    with pytest.raises(RecordNotFoundError, match="no leader_board row for round 9 of team 'team-a'"):
        await store.mark_final(RoundKey("exec-1", "team-a", 9))
    [row] = await store.get_leader_board("exec-1")
    assert row.is_final is True


async def test_json_columns_hold_json(store: AggregationStore, db_path: Path) -> None:
    await store.save_round(record(usage_info={"input_tokens": 10, "note": "日本語"}))
    store.close()
    conn = duckdb.connect(str(db_path), read_only=True)
    try:
        row = conn.execute(
            "SELECT usage_info->>'note', json_type(score_details) FROM leader_board"
        ).fetchone()
    finally:
        conn.close()
    assert row == ("日本語", "OBJECT")


async def test_round_histories_of_an_execution_in_one_read(store: AggregationStore) -> None:
    await store.save_round(record("team-b", 1))
    await store.save_round(record("team-a", 2))
    await store.save_round(record("team-a", 1))
    await store.save_round(record("team-c", 1, execution_id="exec-2"))

    histories = await store.get_round_histories("exec-1")

    assert [(h.team_id, h.round_number) for h in histories] == [("team-a", 1), ("team-b", 1), ("team-a", 2)]
    assert histories[0].member_submissions_record == {"team_id": "team-a", "submissions": []}
    assert histories[0] == await store.get_round_history(RoundKey("exec-1", "team-a", 1))
