"""Helpers shared by the prompt builder tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from mixseek.round_controller.models import RoundState

FIXED_NOW = "2025-11-19T12:34:56.789012+00:00"


def write_config(workspace: Path, body: str) -> Path:
    path = workspace / "configs" / "prompt_builder.toml"
    path.write_text(body, encoding="utf-8")
    return path


def round_state(
    number: int,
    content: str = "content",
    score: float = 50.0,
    details: dict[str, Any] | None = None,
) -> RoundState:
    now = datetime(2025, 11, 19, 12, 0, 0)
    return RoundState(
        round_number=number,
        submission_content=content,
        evaluation_score=score,
        score_details=details if details is not None else {},
        round_started_at=now,
        round_ended_at=now,
    )


class ListStore:
    """A store double: returns a fixed ranking and counts the calls."""

    def __init__(self, ranking: Sequence[Mapping[str, Any]]) -> None:
        self.ranking = [dict(entry) for entry in ranking]
        self.calls: list[str] = []

    async def get_leader_board_ranking(self, execution_id: str) -> list[dict[str, Any]]:
        self.calls.append(execution_id)
        return self.ranking


def entry(team_id: str, name: str, score: float, rounds: int) -> dict[str, Any]:
    return {"team_id": team_id, "team_name": name, "max_score": score, "total_rounds": rounds}
