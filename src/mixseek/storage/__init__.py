"""mixseek.storage: executions, rounds and the leaderboard in DuckDB. Each name loads its module on first use,
so a command that reads one part of the store does not pay for the rest (the write path, tenacity, psutil)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mixseek.lazy_exports import lazy_exports

# name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AggregationStore": "mixseek.storage.aggregation_store",
    "default_db_path": "mixseek.storage.aggregation_store",
    "RecordNotFoundError": "mixseek.storage.errors",
    "SchemaVersionError": "mixseek.storage.errors",
    "StorageError": "mixseek.storage.errors",
    "StoreBusyError": "mixseek.storage.errors",
    "ExecutionOwnedError": "mixseek.storage.lease",
    "ExecutionOwner": "mixseek.storage.lease",
    "ExecutionLease": "mixseek.storage.models",
    "ExecutionRecord": "mixseek.storage.models",
    "ExecutionStatus": "mixseek.storage.models",
    "FinalStatus": "mixseek.storage.models",
    "LeaderBoardRow": "mixseek.storage.models",
    "RoundHistoryRecord": "mixseek.storage.models",
    "RoundRecord": "mixseek.storage.models",
    "RoundStatusRecord": "mixseek.storage.models",
    "RoundStatusValue": "mixseek.storage.models",
    "StopReason": "mixseek.storage.models",
    "Store": "mixseek.storage.protocol",
    "RetryPolicy": "mixseek.storage.retry",
    "BestSubmission": "mixseek.storage.overview",
    "ExecutionOverview": "mixseek.storage.overview",
    "ExecutionProgress": "mixseek.storage.views",
    "ExecutionView": "mixseek.storage.views",
    "MemberAnswer": "mixseek.storage.views",
    "MemberCounts": "mixseek.storage.views",
    "MetricScore": "mixseek.storage.views",
    "RankingEntry": "mixseek.storage.overview",
    "RoundJudgment": "mixseek.storage.views",
    "RoundView": "mixseek.storage.views",
    "TeamStanding": "mixseek.storage.overview",
    "TeamStatus": "mixseek.storage.overview",
    "TeamView": "mixseek.storage.views",
    "UsageTotals": "mixseek.storage.overview",
}

__all__ = [
    "AggregationStore",
    "BestSubmission",
    "ExecutionLease",
    "ExecutionOverview",
    "ExecutionOwnedError",
    "ExecutionOwner",
    "ExecutionProgress",
    "ExecutionRecord",
    "ExecutionStatus",
    "ExecutionView",
    "FinalStatus",
    "LeaderBoardRow",
    "MemberAnswer",
    "MemberCounts",
    "MetricScore",
    "RankingEntry",
    "RecordNotFoundError",
    "RetryPolicy",
    "RoundHistoryRecord",
    "RoundJudgment",
    "RoundRecord",
    "RoundStatusRecord",
    "RoundStatusValue",
    "RoundView",
    "SchemaVersionError",
    "StopReason",
    "StorageError",
    "Store",
    "StoreBusyError",
    "TeamStanding",
    "TeamStatus",
    "TeamView",
    "UsageTotals",
    "default_db_path",
]

if TYPE_CHECKING:
    from mixseek.storage.aggregation_store import AggregationStore, default_db_path
    from mixseek.storage.errors import RecordNotFoundError, SchemaVersionError, StorageError, StoreBusyError
    from mixseek.storage.lease import ExecutionOwnedError, ExecutionOwner
    from mixseek.storage.models import (
        ExecutionLease,
        ExecutionRecord,
        ExecutionStatus,
        FinalStatus,
        LeaderBoardRow,
        RoundHistoryRecord,
        RoundRecord,
        RoundStatusRecord,
        RoundStatusValue,
        StopReason,
    )
    from mixseek.storage.overview import (
        BestSubmission,
        ExecutionOverview,
        RankingEntry,
        TeamStanding,
        TeamStatus,
        UsageTotals,
    )
    from mixseek.storage.protocol import Store
    from mixseek.storage.retry import RetryPolicy
    from mixseek.storage.views import (
        ExecutionProgress,
        ExecutionView,
        MemberAnswer,
        MemberCounts,
        MetricScore,
        RoundJudgment,
        RoundView,
        TeamView,
    )


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
