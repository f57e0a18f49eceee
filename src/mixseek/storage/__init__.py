"""mixseek.storage: executions, rounds and the leaderboard in DuckDB.

Importing this package loads DuckDB, pydantic and psutil only, no LLM provider SDK.
"""

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
from mixseek.storage.protocol import Store
from mixseek.storage.retry import RetryPolicy
from mixseek.storage.views import (
    BestSubmission,
    ExecutionOverview,
    ExecutionProgress,
    ExecutionView,
    MemberAnswer,
    MemberCounts,
    MetricScore,
    RankingEntry,
    RoundJudgment,
    RoundView,
    TeamStanding,
    TeamStatus,
    TeamView,
    UsageTotals,
)

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
