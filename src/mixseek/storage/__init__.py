"""mixseek.storage: executions, rounds and the leaderboard in DuckDB.

Importing this package loads DuckDB and pydantic only, no LLM provider SDK.
"""

from mixseek.storage.aggregation_store import AggregationStore, default_db_path
from mixseek.storage.errors import RecordNotFoundError, SchemaVersionError, StorageError, StoreBusyError
from mixseek.storage.models import (
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
