"""Leaderboard ranking."""

from __future__ import annotations

import random
from typing import Any

from mixseek.storage import AggregationStore

from .support import record


def entry(team_id: str, max_score: float, total_rounds: int) -> dict[str, Any]:
    return {
        "team_id": team_id,
        "team_name": f"Team {team_id}",
        "max_score": max_score,
        "total_rounds": total_rounds,
    }


async def test_ranked_by_best_score_with_round_counts(store: AggregationStore) -> None:
    for team, number, score in [
        ("team-a", 1, 80.0),
        ("team-a", 2, 60.0),
        ("team-b", 1, 90.0),
        ("team-c", 1, 10.0),
        ("team-c", 2, 20.0),
        ("team-c", 3, 70.0),
    ]:
        await store.save_round(record(team, number, score))
    assert await store.get_leader_board_ranking("exec-1") == [
        entry("team-b", 90.0, 1),
        entry("team-a", 80.0, 2),
        entry("team-c", 70.0, 3),
    ]


async def test_equal_best_scores_rank_the_later_round_first(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 85.0))
    await store.save_round(record("team-a", 2, 40.0))
    await store.save_round(record("team-a", 3, 50.0))
    await store.save_round(record("team-b", 1, 30.0))
    await store.save_round(record("team-b", 2, 85.0))
    # team-c reached 85 in round 1 and again in round 3: its later one counts.
    await store.save_round(record("team-c", 1, 85.0))
    await store.save_round(record("team-c", 3, 85.0))
    assert await store.get_leader_board_ranking("exec-1") == [
        entry("team-c", 85.0, 2),
        entry("team-b", 85.0, 2),
        entry("team-a", 85.0, 3),
    ]


async def test_equal_score_and_round_rank_by_team_id(store: AggregationStore) -> None:
    for team in ("team-c", "team-a", "team-b"):
        await store.save_round(record(team, 2, 64.25))
    assert await store.get_leader_board_ranking("exec-1") == [
        entry("team-a", 64.25, 1),
        entry("team-b", 64.25, 1),
        entry("team-c", 64.25, 1),
    ]


async def test_unknown_execution_has_empty_ranking(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 50.0, execution_id="exec-1"))
    assert await store.get_leader_board_ranking("exec-unknown") == []
    assert await store.get_leader_board_ranking("exec-unknown", max_round=3) == []


async def test_team_name_comes_from_the_latest_round(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 90.0, team_name="Old Name"))
    await store.save_round(record("team-a", 2, 10.0, team_name="New Name"))
    [ranked] = await store.get_leader_board_ranking("exec-1")
    assert ranked == {"team_id": "team-a", "team_name": "New Name", "max_score": 90.0, "total_rounds": 2}


async def test_max_round_limits_the_snapshot(store: AggregationStore) -> None:
    await store.save_round(record("team-a", 1, 50.0))
    await store.save_round(record("team-b", 1, 40.0))
    await store.save_round(record("team-b", 2, 95.0))  # a fast team already finished round 2
    assert await store.get_leader_board_ranking("exec-1", max_round=1) == [
        entry("team-a", 50.0, 1),
        entry("team-b", 40.0, 1),
    ]
    assert await store.get_leader_board_ranking("exec-1", max_round=2) == [
        entry("team-b", 95.0, 2),
        entry("team-a", 50.0, 1),
    ]


def expected_ranking(board: dict[tuple[str, int], float]) -> list[dict[str, Any]]:
    """The ranking rule written out in Python, independent of the SQL."""
    teams: dict[str, list[tuple[int, float]]] = {}
    for (team, number), score in board.items():
        teams.setdefault(team, []).append((number, score))
    rows = []
    for team, rounds in teams.items():
        best = max(score for _, score in rounds)
        best_round = max(number for number, score in rounds if score == best)
        rows.append((-best, -best_round, team, entry(team, best, len(rounds))))
    return [row[-1] for row in sorted(rows, key=lambda row: row[:3])]


async def test_ranking_matches_the_rule_through_replacements(store: AggregationStore) -> None:
    rng = random.Random(2025)
    board: dict[tuple[str, int], float] = {}
    for _ in range(80):
        team, number = f"team-{rng.randrange(6)}", rng.randrange(1, 5)
        score = float(rng.choice([20, 45.5, 70, 70, 88.25, 100]))  # many ties
        await store.save_round(record(team, number, score))
        board[(team, number)] = score
    expected = expected_ranking(board)
    assert len(expected) == 6
    assert await store.get_leader_board_ranking("exec-1") == expected
    assert await store.get_leader_board_ranking("exec-1", max_round=4) == expected
    early = {key: score for key, score in board.items() if key[1] <= 2}
    assert await store.get_leader_board_ranking("exec-1", max_round=2) == expected_ranking(early)
