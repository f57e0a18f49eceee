"""The context a prompt is built from, and the one store method the builder needs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from mixseek.round_state import RoundState


@runtime_checkable
class LeaderBoardSource(Protocol):
    """Anything that can give the current leaderboard of an execution.

    `mixseek.storage.aggregation_store.AggregationStore` is one; tests use any small
    object with this method. Entries are `{"team_id", "team_name", "max_score",
    "total_rounds"}`, already ordered best first (DESIGN decision 6).
    """

    async def get_leader_board_ranking(self, execution_id: str) -> Sequence[Mapping[str, Any]]: ...


class RoundPromptContext(BaseModel):
    """What a team prompt (or a judgment prompt) is built from (seed 000 §1.2).

    For a team prompt `round_number` is the round about to run and `round_history`
    holds the team's finished rounds before it; for a judgment prompt
    `round_number` is the round just finished and `round_history` includes it.

    The leaderboard comes as data or from a store: `ranking`, when given, is the
    ranking already read (e.g. at the round barrier, DESIGN decision 6 order) and
    no store is asked; otherwise `store`, when given, supplies it and takes
    precedence over the builder's own store (seed 000).
    """

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
