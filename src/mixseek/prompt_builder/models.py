"""The context a prompt is built from, and the one store method the builder needs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from mixseek.round_state import RoundState


@runtime_checkable
class LeaderBoardSource(Protocol):
    """What gives an execution's leaderboard (`RANKING_KEYS`, best first), such as `AggregationStore`."""

    async def get_leader_board_ranking(self, execution_id: str) -> Sequence[Mapping[str, Any]]: ...


class RoundPromptContext(BaseModel):
    """What a team or judgment prompt is built from: `round_number` is the round about to run (team) or just
    run (judgment: in `round_history`); `ranking` is used as given, else `store`'s, ahead of the builder's."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    user_prompt: str
    round_number: int
    round_history: list[RoundState]
    team_id: str
    team_name: str
    execution_id: str
    store: LeaderBoardSource | None = None
    ranking: list[dict[str, Any]] | None = None

    @field_validator("round_number")
    @classmethod
    def _round_number_positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("round_number must be >= 1")
        return value

    @field_validator("user_prompt", "team_id", "team_name", "execution_id")
    @classmethod
    def _not_empty(cls, value: str, info: ValidationInfo) -> str:
        if not value.strip():
            raise ValueError(f"{info.field_name} cannot be empty")
        return value
