"""`Store`: what the rest of mixseek asks of a store, so a second backend is one new module. A backend keeps
the contracts of `AggregationStore`: a round's rows and the usage that paid for them are written all or
nothing, a ranking is one committed snapshot, and a `running` execution whose owner is gone is
`interrupted`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from mixseek.round_state import RoundState
from mixseek.storage.lease import ExecutionOwner
from mixseek.storage.models import (
    ExecutionRecord,
    ExecutionStatus,
    LeaderBoardRow,
    RoundDecision,
    RoundKey,
    RoundRecord,
    RoundStatusRecord,
)
from mixseek.storage.pairwise_views import PairwiseComparison, PairwiseStanding
from mixseek.storage.views import RankingEntry, UsageTotals


@runtime_checkable
class RoundWriter(Protocol):
    """The writes a team round makes, which a Temporal worker records for the store's one writer to apply."""

    async def save_round(
        self, record: RoundRecord, *, model_calls: Sequence[Mapping[str, Any]] = ()
    ) -> None: ...

    async def mark_round_failed(
        self,
        key: RoundKey,
        status: Literal["failed", "timeout"],
        error_message: str,
        *,
        ended_at: datetime | None = None,
        model_calls: Sequence[Mapping[str, Any]] = (),
    ) -> None: ...

    async def update_judgment(
        self, key: RoundKey, decision: RoundDecision, *, model_calls: Sequence[Mapping[str, Any]] = ()
    ) -> None: ...


@runtime_checkable
class Store(RoundWriter, Protocol):
    @property
    def location(self) -> str:
        """Where the data lives, for messages (a file, a server)."""
        ...

    async def aclose(self) -> None:
        """Release what the store holds open; the next operation opens it again."""
        ...

    # -- executions and their owner (see `storage.lease`) ---------------------------

    async def create_execution(
        self,
        execution_id: str,
        user_prompt: str,
        config: dict[str, Any],
        *,
        owner: ExecutionOwner | None = None,
        reference: str | None = None,
    ) -> None: ...

    async def claim_execution(self, execution_id: str, owner: ExecutionOwner) -> float:
        """Take the execution over to resume it; returns the seconds its earlier processes ran it."""
        ...

    async def renew_lease(self, execution_id: str, owner: ExecutionOwner) -> None: ...

    async def finish_execution(
        self,
        execution_id: str,
        status: ExecutionStatus,
        summary: dict[str, Any] | None,
        *,
        ended_at: datetime | None = None,
        owner: ExecutionOwner | None = None,
    ) -> None: ...

    async def get_execution(self, execution_id: str) -> ExecutionRecord | None: ...

    # -- rounds, decisions and usage (and the writes of `RoundWriter`) --------------------

    async def mark_rounds_started(
        self, execution_id: str, round_number: int, team_ids: Sequence[str]
    ) -> None: ...

    async def mark_final(self, key: RoundKey) -> None: ...

    async def record_model_calls(self, execution_id: str, calls: Sequence[Mapping[str, Any]]) -> None: ...

    async def get_usage_totals(
        self, execution_id: str, *, team_id: str | None = None, round_number: int | None = None
    ) -> UsageTotals: ...

    async def get_usage_by_site(
        self, execution_id: str, *, team_id: str | None = None, round_number: int | None = None
    ) -> dict[str, UsageTotals]: ...

    # -- what teams and prompts see ---------------------------------------------------

    async def get_ranking(self, execution_id: str, *, max_round: int | None = None) -> list[RankingEntry]: ...

    async def get_leader_board_ranking(
        self, execution_id: str, *, max_round: int | None = None
    ) -> list[dict[str, Any]]: ...

    async def get_submission_histories(
        self, execution_id: str, *, before_round: int
    ) -> dict[str, list[RoundState]]: ...

    async def get_leader_board(self, execution_id: str) -> list[LeaderBoardRow]: ...

    async def get_round_statuses(self, execution_id: str) -> list[RoundStatusRecord]: ...

    # -- the final pairwise stage ------------------------------------------------------

    async def save_pairwise_comparison(
        self,
        execution_id: str,
        comparison: PairwiseComparison,
        *,
        model_calls: Sequence[Mapping[str, Any]] = (),
    ) -> None: ...

    async def get_pairwise_comparisons(self, execution_id: str) -> list[PairwiseComparison]: ...

    async def save_pairwise_ranking(
        self, execution_id: str, standings: Sequence[PairwiseStanding]
    ) -> None: ...
