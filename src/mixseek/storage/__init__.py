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
    LeaderBoardRow,
    RoundHistoryRecord,
    RoundRecord,
    RoundStatusRecord,
    RoundStatusValue,
)
from mixseek.storage.retry import RetryPolicy

__all__ = [
    "AggregationStore",
    "ExecutionLease",
    "ExecutionOwnedError",
    "ExecutionOwner",
    "ExecutionRecord",
    "ExecutionStatus",
    "LeaderBoardRow",
    "RecordNotFoundError",
    "RetryPolicy",
    "RoundHistoryRecord",
    "RoundRecord",
    "RoundStatusRecord",
    "RoundStatusValue",
    "SchemaVersionError",
    "StorageError",
    "StoreBusyError",
    "default_db_path",
]
