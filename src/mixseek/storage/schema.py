"""Database schema as an ordered list of forward migrations, applied in one transaction on open.

Append a `Migration` to `MIGRATIONS`; never edit a released one (users' files carry it).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

import duckdb

from mixseek.storage.errors import SchemaVersionError, is_query_interrupted
from mixseek.storage.models import ExecutionStatus, RoundStatusValue

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

EXECUTION_STATUSES: tuple[str, ...] = get_args(ExecutionStatus)
ROUND_STATUSES: tuple[str, ...] = get_args(RoundStatusValue)


def _sql_list(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


@dataclass(frozen=True)
class Migration:
    """One forward step: the statements that take a file from `version - 1` to `version`."""

    version: int
    description: str
    statements: tuple[str, ...]


def _leader_board(name: str, score_check: str) -> str:
    return f"""
    CREATE TABLE {name} (
        id BIGINT PRIMARY KEY DEFAULT nextval('leader_board_id_seq'),
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        team_name TEXT NOT NULL,
        round_number INTEGER NOT NULL CHECK (round_number >= 1),
        evaluation_score DOUBLE NOT NULL CHECK ({score_check}),
        evaluation_feedback TEXT,
        score_details JSON,
        submission_content TEXT NOT NULL,
        submission_format TEXT DEFAULT 'structured_json',
        usage_info JSON,
        is_final BOOLEAN NOT NULL DEFAULT FALSE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
        UNIQUE (execution_id, team_id, round_number)
    )
    """


_INITIAL_SCHEMA: tuple[str, ...] = (
    f"""
    CREATE TABLE executions (
        execution_id TEXT PRIMARY KEY,
        user_prompt TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ({_sql_list(EXECUTION_STATUSES)})),
        config JSON,
        started_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
        ended_at TIMESTAMPTZ,
        summary JSON
    )
    """,
    "CREATE SEQUENCE round_history_id_seq",
    """
    CREATE TABLE round_history (
        id BIGINT PRIMARY KEY DEFAULT nextval('round_history_id_seq'),
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        team_name TEXT NOT NULL,
        round_number INTEGER NOT NULL CHECK (round_number >= 1),
        message_history JSON,
        member_submissions_record JSON,
        created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
        UNIQUE (execution_id, team_id, round_number)
    )
    """,
    "CREATE SEQUENCE leader_board_id_seq",
    _leader_board("leader_board", "evaluation_score BETWEEN 0 AND 100"),
    "CREATE INDEX idx_leader_board_execution ON leader_board (execution_id)",
    f"""
    CREATE TABLE round_status (
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        round_number INTEGER NOT NULL CHECK (round_number >= 1),
        status TEXT NOT NULL CHECK (status IN ({_sql_list(ROUND_STATUSES)})),
        started_at TIMESTAMPTZ,
        ended_at TIMESTAMPTZ,
        should_continue BOOLEAN,
        judgment_reasoning TEXT,
        judgment_confidence DOUBLE,
        exit_reason TEXT,
        error_message TEXT,
        UNIQUE (execution_id, team_id, round_number)
    )
    """,
    """
    CREATE TABLE team_standings (
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        team_name TEXT NOT NULL,
        max_score DOUBLE NOT NULL,
        best_round INTEGER NOT NULL,
        total_rounds INTEGER NOT NULL,
        last_round INTEGER NOT NULL,
        PRIMARY KEY (execution_id, team_id)
    )
    """,
    "CREATE INDEX idx_team_standings_execution ON team_standings (execution_id)",
)

# Usage of every model request, so budgets and summaries survive an interrupted process.
_MODEL_CALLS: tuple[str, ...] = (
    "CREATE SEQUENCE model_calls_id_seq",
    """
    CREATE TABLE model_calls (
        id BIGINT PRIMARY KEY DEFAULT nextval('model_calls_id_seq'),
        execution_id TEXT NOT NULL,
        team_id TEXT,
        round_number INTEGER,
        site TEXT NOT NULL,
        model TEXT NOT NULL,
        requests INTEGER NOT NULL DEFAULT 1,
        input_tokens BIGINT NOT NULL DEFAULT 0,
        output_tokens BIGINT NOT NULL DEFAULT 0,
        cost DOUBLE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
    )
    """,
    "CREATE INDEX idx_model_calls_execution ON model_calls (execution_id, team_id, round_number)",
)

# The one process that runs an execution (see `lease`); deleted when it finishes.
_EXECUTION_LEASES: tuple[str, ...] = (
    """
    CREATE TABLE execution_leases (
        execution_id TEXT PRIMARY KEY,
        owner_token TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        process_started DOUBLE,
        acquired_at TIMESTAMPTZ NOT NULL,
        heartbeat_at TIMESTAMPTZ NOT NULL
    )
    """,
)

# `mixseek bench`: each (task, repeat) is an execution, written before it starts so a resume finds it.
_BENCHES: tuple[str, ...] = (
    """
    CREATE TABLE benches (
        bench_id TEXT PRIMARY KEY,
        tasks_file TEXT NOT NULL,
        tasks_sha256 TEXT NOT NULL,
        task_count INTEGER NOT NULL CHECK (task_count >= 1),
        repeats INTEGER NOT NULL CHECK (repeats >= 1),
        created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
    )
    """,
    f"""
    CREATE TABLE bench_runs (
        bench_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        repeat_number INTEGER NOT NULL CHECK (repeat_number >= 1),
        execution_id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ({_sql_list(EXECUTION_STATUSES)})),
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (bench_id, task_id, repeat_number)
    )
    """,
)

# The final pairwise stage: each comparison judged in both orders, and the Bradley–Terry ranking.
_PAIRWISE_RANKING: tuple[str, ...] = (
    """
    CREATE TABLE pairwise_comparisons (
        execution_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        team_a TEXT NOT NULL,
        team_b TEXT NOT NULL,
        round_a INTEGER NOT NULL,
        round_b INTEGER NOT NULL,
        verdict_a_first TEXT NOT NULL CHECK (verdict_a_first IN ('A', 'B', 'tie')),
        verdict_b_first TEXT NOT NULL CHECK (verdict_b_first IN ('A', 'B', 'tie')),
        outcome DOUBLE NOT NULL CHECK (outcome IN (0.0, 0.5, 1.0)),
        reasoning_a_first TEXT,
        reasoning_b_first TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
        PRIMARY KEY (execution_id, team_a, team_b),
        CHECK (team_a <> team_b)
    )
    """,
    """
    CREATE TABLE pairwise_ranking (
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        team_name TEXT NOT NULL,
        rank INTEGER NOT NULL CHECK (rank >= 1),
        strength DOUBLE NOT NULL,
        ci_low DOUBLE NOT NULL,
        ci_high DOUBLE NOT NULL,
        wins DOUBLE NOT NULL,
        matches INTEGER NOT NULL,
        score_rank INTEGER,
        PRIMARY KEY (execution_id, team_id)
    )
    """,
)

# The answer key an execution's reference metrics compare submissions with; teams never see it.
_EXECUTION_REFERENCE: tuple[str, ...] = ("ALTER TABLE executions ADD COLUMN reference TEXT",)

# Duration summed over `exec` and each `--resume`: the current span since `active_since`, plus the
# earlier spans; NULL in older executions.
_EXECUTION_ACTIVE_TIME: tuple[str, ...] = (
    "ALTER TABLE executions ADD COLUMN active_since TIMESTAMPTZ",
    "ALTER TABLE executions ADD COLUMN active_before_seconds DOUBLE",
)

# The owner's command-line digest, so a dashboard's Stop signals only that process.
_LEASE_COMMAND: tuple[str, ...] = ("ALTER TABLE execution_leases ADD COLUMN command_sha256 TEXT",)

# Scores on any scale (a metric declares its range): the board keeps any finite score. DuckDB cannot
# drop a CHECK, so the table is copied; and each model call keeps the settings it ran with.
_ANY_SCALE_AND_CALL_SETTINGS: tuple[str, ...] = (
    _leader_board("leader_board_any_scale", "isfinite(evaluation_score)"),
    "INSERT INTO leader_board_any_scale SELECT * FROM leader_board",
    "DROP INDEX idx_leader_board_execution",
    "DROP TABLE leader_board",
    "ALTER TABLE leader_board_any_scale RENAME TO leader_board",
    "CREATE INDEX idx_leader_board_execution ON leader_board (execution_id)",
    "ALTER TABLE model_calls ADD COLUMN settings JSON",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", _INITIAL_SCHEMA),
    Migration(2, "model_calls: usage per model request", _MODEL_CALLS),
    Migration(3, "execution_leases: one owner per execution", _EXECUTION_LEASES),
    Migration(4, "executions.reference: the reference answer", _EXECUTION_REFERENCE),
    Migration(5, "pairwise_comparisons, pairwise_ranking: the final pairwise stage", _PAIRWISE_RANKING),
    Migration(6, "benches, bench_runs: mixseek bench task sets", _BENCHES),
    Migration(
        7, "executions.active_since, active_before_seconds: duration across resumes", _EXECUTION_ACTIVE_TIME
    ),
    Migration(8, "execution_leases.command_sha256: the owner's command line", _LEASE_COMMAND),
    Migration(9, "leader_board: scores on any scale; model_calls.settings", _ANY_SCALE_AND_CALL_SETTINGS),
)

CURRENT_VERSION = MIGRATIONS[-1].version

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    description TEXT
)
"""


def read_version(conn: DuckDBPyConnection) -> int:
    """The schema version of the open file; 0 when never migrated (asked outside a transaction)."""
    try:
        row = conn.execute("SELECT coalesce(max(version), 0) FROM main.schema_version").fetchone()
    except duckdb.CatalogException:
        return 0  # no schema_version table: never migrated
    return int(row[0]) if row is not None else 0


def _refuse_newer(found: int, latest: int, where: str) -> None:
    if found > latest:
        raise SchemaVersionError(
            f"{where}: database schema version {found} is newer than this mixseek supports "
            f"(up to {latest}); upgrade mixseek to open it"
        )


def check_schema(
    conn: DuckDBPyConnection, where: str, migrations: tuple[Migration, ...] = MIGRATIONS
) -> None:
    """For read-only connections: the file must be exactly at the code's version."""
    latest = migrations[-1].version
    found = read_version(conn)
    _refuse_newer(found, latest, where)
    if found < latest:
        raise SchemaVersionError(
            f"{where}: database schema version {found} is older than this mixseek needs ({latest}); "
            "open it read-write once to upgrade it"
        )


def migrate(conn: DuckDBPyConnection, where: str, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """Bring the file (`where` in errors) to the newest migration in one transaction; its version."""
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise ValueError(
                f"migration versions must run 1, 2, 3, ...: found {migration.version} at {expected}"
            )
    latest = migrations[-1].version
    found = read_version(conn)
    _refuse_newer(found, latest, where)
    if found == latest:
        return found
    conn.begin()
    try:
        conn.execute(_VERSION_TABLE)
        for migration in migrations[found:]:
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, description) VALUES (?, ?)",
                [migration.version, migration.description],
            )
        conn.commit()
    except BaseException as exc:
        # a commit cut short (a Ctrl-C, a full disk) may leave no transaction to roll back
        with contextlib.suppress(duckdb.Error):
            conn.rollback()
        if not isinstance(exc, Exception) or is_query_interrupted(exc):
            raise
        raise SchemaVersionError(
            f"{where}: cannot upgrade database schema from version {found} to {latest}: {exc}"
        ) from exc
    return latest
