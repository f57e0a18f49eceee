"""Schema creation and forward migrations."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from mixseek.errors import MixseekError
from mixseek.storage import AggregationStore, SchemaVersionError, UsageTotals
from mixseek.storage.schema import CURRENT_VERSION, MIGRATIONS, Migration, migrate, read_version

TABLES = [
    "bench_runs",
    "benches",
    "execution_leases",
    "executions",
    "leader_board",
    "model_calls",
    "pairwise_comparisons",
    "pairwise_ranking",
    "round_history",
    "round_status",
    "schema_version",
    "team_standings",
]
ALL_VERSIONS = [
    (1, "initial schema"),
    (2, "model_calls: usage per model request"),
    (3, "execution_leases: one owner per execution"),
    (4, "executions.reference: the reference answer"),
    (5, "pairwise_comparisons, pairwise_ranking: the final pairwise stage"),
    (6, "benches, bench_runs: mixseek bench task sets"),
    (7, "executions.active_since, active_before_seconds: duration across resumes"),
    (8, "execution_leases.command_sha256: the owner's command line"),
    (9, "leader_board: scores on any scale; model_calls.settings"),
]


def tables(path: Path) -> list[str]:
    conn = duckdb.connect(str(path), read_only=True)
    try:
        rows = conn.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()
    finally:
        conn.close()
    return [name for (name,) in rows]


def versions(path: Path) -> list[tuple[int, str]]:
    conn = duckdb.connect(str(path), read_only=True)
    try:
        return conn.execute("SELECT version, description FROM schema_version ORDER BY version").fetchall()
    finally:
        conn.close()


def test_current_version_is_the_last_migration() -> None:
    assert CURRENT_VERSION == 9
    assert [m.version for m in MIGRATIONS] == [1, 2, 3, 4, 5, 6, 7, 8, 9]


async def test_new_file_gets_the_full_schema(db_path: Path) -> None:
    async with AggregationStore(db_path) as store:
        await store.initialize()
    assert tables(db_path) == TABLES
    assert versions(db_path) == ALL_VERSIONS


async def test_reopening_does_not_migrate_again(db_path: Path) -> None:
    for number in range(2):
        async with AggregationStore(db_path) as store:
            await store.create_execution(f"exec-{number}", "p", {})
    assert versions(db_path) == ALL_VERSIONS


async def test_version_0_file_is_upgraded_and_keeps_its_data(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('kept')")
    assert read_version(conn) == 0
    conn.close()

    async with AggregationStore(db_path) as store:
        await store.create_execution("exec-1", "p", {})
    assert tables(db_path) == sorted([*TABLES, "notes"])
    assert versions(db_path) == ALL_VERSIONS
    conn = duckdb.connect(str(db_path), read_only=True)
    assert conn.execute("SELECT text FROM notes").fetchall() == [("kept",)]
    conn.close()


def test_older_file_is_upgraded_to_the_next_migration(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    conn = duckdb.connect(path)
    assert migrate(conn, path, MIGRATIONS[:1]) == 1
    conn.execute("INSERT INTO executions (execution_id, user_prompt) VALUES ('exec-1', 'p')")
    later = (
        *MIGRATIONS[:1],
        Migration(2, "executions.tag", ("ALTER TABLE executions ADD COLUMN tag TEXT DEFAULT 'none'",)),
        Migration(3, "tag index", ("CREATE INDEX idx_executions_tag ON executions (tag)",)),
    )
    assert migrate(conn, path, later) == 3
    assert conn.execute("SELECT execution_id, tag FROM executions").fetchall() == [("exec-1", "none")]
    assert conn.execute("SELECT version, description FROM schema_version ORDER BY version").fetchall() == [
        (1, "initial schema"),
        (2, "executions.tag"),
        (3, "tag index"),
    ]
    assert migrate(conn, path, later) == 3
    conn.close()


def test_failed_migration_leaves_the_file_unchanged(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    conn = duckdb.connect(path)
    migrate(conn, path, MIGRATIONS[:1])
    broken = (
        *MIGRATIONS[:1],
        Migration(2, "half", ("ALTER TABLE executions ADD COLUMN tag TEXT", "SELECT * FROM no_such_table")),
    )
    with pytest.raises(
        SchemaVersionError, match=r"cannot upgrade database schema from version 1 to 2: .*no_such_table"
    ):
        migrate(conn, path, broken)
    assert read_version(conn) == 1
    columns = conn.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'executions'"
    ).fetchall()
    assert ("tag",) not in columns
    conn.close()


def test_failed_first_migration_creates_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    conn = duckdb.connect(path)
    broken = (Migration(1, "bad", ("CREATE TABLE a (x INTEGER)", "CREATE TABLE a (y INTEGER)")),)
    with pytest.raises(SchemaVersionError, match="from version 0 to 1"):
        migrate(conn, path, broken)
    assert conn.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)]
    conn.close()


def test_migration_versions_must_be_consecutive(tmp_path: Path) -> None:
    conn = duckdb.connect(str(tmp_path / "m.db"))
    with pytest.raises(ValueError, match="found 3 at 2"):
        migrate(conn, "m.db", (*MIGRATIONS[:1], Migration(3, "gap", ())))
    conn.close()


async def test_newer_file_is_refused_with_a_clear_error(db_path: Path) -> None:
    async with AggregationStore(db_path) as store:
        await store.initialize()
    conn = duckdb.connect(str(db_path))
    conn.execute("INSERT INTO schema_version (version, description) VALUES (10, 'from the future')")
    conn.close()

    for read_only in (False, True):
        store = AggregationStore(db_path, read_only=read_only)
        with pytest.raises(SchemaVersionError) as caught:
            await store.get_leader_board_ranking("exec-1")
        assert isinstance(caught.value, MixseekError)
        assert str(caught.value) == (
            f"{db_path}: database schema version 10 is newer than this mixseek supports (up to 9); "
            "upgrade mixseek to open it"
        )
        assert not store.is_open


async def test_read_only_store_does_not_upgrade(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    duckdb.connect(str(db_path)).close()
    reader = AggregationStore(db_path, read_only=True)
    with pytest.raises(SchemaVersionError) as caught:
        await reader.initialize()
    assert str(caught.value) == (
        f"{db_path}: database schema version 0 is older than this mixseek needs (9); "
        "open it read-write once to upgrade it"
    )
    assert tables(db_path) == []


async def test_version_1_file_gets_model_calls_and_keeps_its_rounds(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    assert migrate(conn, str(db_path), MIGRATIONS[:1]) == 1
    conn.execute("INSERT INTO executions (execution_id, user_prompt) VALUES ('exec-1', 'p')")
    conn.close()
    async with AggregationStore(db_path) as store:
        await store.record_model_calls(
            "exec-1",
            [{"team_id": "a", "round_number": 1, "site": "judgment", "model": "m", "input_tokens": 3}],
        )
        assert await store.get_usage_totals("exec-1") == UsageTotals(
            requests=1, input_tokens=3, output_tokens=0
        )
        assert (await store.get_execution("exec-1")) is not None
    assert versions(db_path) == ALL_VERSIONS


async def test_version_3_file_gets_a_reference_column_and_keeps_its_executions(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    assert migrate(conn, str(db_path), MIGRATIONS[:3]) == 3
    conn.execute("INSERT INTO executions (execution_id, user_prompt, status) VALUES ('old', 'p', 'failed')")
    conn.close()
    async with AggregationStore(db_path) as store:
        old = await store.get_execution("old")
        assert old is not None
        assert (old.user_prompt, old.status, old.reference) == ("p", "failed", None)
        await store.create_execution("new", "q", {}, reference="答え: 42")
        new = await store.get_execution("new")
        assert new is not None and new.reference == "答え: 42"
    assert versions(db_path) == ALL_VERSIONS


def test_version_8_file_keeps_its_board_and_takes_any_finite_score(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    assert migrate(conn, str(db_path), MIGRATIONS[:8]) == 8
    insert = (
        "INSERT INTO leader_board (execution_id, team_id, team_name, round_number, evaluation_score, "
        "submission_content) VALUES ('e', 't', 'T', ?, ?, 'x')"
    )
    conn.execute(insert, [1, 72.5])
    with pytest.raises(duckdb.ConstraintException):
        conn.execute(insert, [2, -100.0])
    assert migrate(conn, str(db_path)) == 9
    conn.execute(insert, [2, -100.0])
    conn.execute(insert, [3, 1.25])
    for not_a_score in (float("nan"), float("inf")):
        with pytest.raises(duckdb.ConstraintException):
            conn.execute(insert, [4, not_a_score])
    assert conn.execute("SELECT round_number, evaluation_score FROM leader_board ORDER BY 1").fetchall() == [
        (1, 72.5),
        (2, -100.0),
        (3, 1.25),
    ]
    conn.execute(
        "INSERT INTO model_calls (execution_id, site, model, settings) VALUES ('e', 'leader', 'm', ?)",
        ['{"seed": 7}'],
    )
    assert conn.execute("SELECT settings->>'seed' FROM model_calls").fetchall() == [("7",)]
    conn.close()
    assert versions(db_path) == ALL_VERSIONS


class _CommitCutShort:
    """A real connection whose commit is cut short as a Ctrl-C cuts DuckDB's: the commit raises
    DuckDB's `RuntimeError('Query interrupted')` and leaves no transaction to roll back."""

    def __init__(self, conn: duckdb.DuckDBPyConnection) -> None:
        self._conn = conn

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)

    def commit(self) -> None:
        self._conn.rollback()
        raise RuntimeError("Query interrupted")


def test_a_ctrl_c_during_the_upgrade_stays_an_interrupt(tmp_path: Path) -> None:
    """Not a SchemaVersionError ('cannot upgrade'), nor the rollback's own error (a traceback):
    the store hands DuckDB's interrupt on as the Ctrl-C it was."""
    conn = duckdb.connect(str(tmp_path / "db.duckdb"))
    with pytest.raises(RuntimeError, match=r"^Query interrupted$"):
        migrate(_CommitCutShort(conn), "db.duckdb")  # type: ignore[arg-type]
    assert read_version(conn) == 0
    conn.close()
