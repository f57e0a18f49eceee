"""No DuckDB connection of mixseek loads or installs an extension on its own (`storage.duckdb_instance`):
a SQLite file where the store should be is refused in one line, without DuckDB reaching for the
network to fetch `sqlite_scanner`."""

from __future__ import annotations

import ast
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from mixseek.storage import AggregationStore
from mixseek.storage._connection import Connector
from mixseek.storage.duckdb_instance import connect
from mixseek.storage.errors import StorageError
from mixseek.storage.quick_read import read_once

SRC = Path(__file__).resolve().parents[2] / "src" / "mixseek"
SETTINGS = (
    "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions')"
)


def _settings(conn: duckdb.DuckDBPyConnection) -> tuple[object, ...] | None:
    return conn.execute(SETTINGS).fetchone()


def _sqlite_file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE executions (execution_id TEXT PRIMARY KEY, status TEXT)")
        conn.execute("INSERT INTO executions VALUES ('x', 'completed')")
        conn.commit()
    finally:
        conn.close()


def test_runs_list_on_a_sqlite_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    db = ws / "mixseek.db"
    _sqlite_file(db)
    home = tmp_path / "home"  # DuckDB's extension directory is under it: empty, whatever the machine has
    home.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "runs", "list", "-w", str(ws)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: {db}: a SQLite database, not a DuckDB database file; "
        "move it away (or restore a backup) to start a new store"
    ]
    assert not (home / ".duckdb").exists(), "DuckDB looked for an extension"


async def test_every_connection_of_the_store_has_extension_autoloading_off(tmp_path: Path) -> None:
    db = tmp_path / "ws" / "mixseek.db"
    async with AggregationStore(db) as store:
        await store.initialize()
        writer = await store._call(_settings, write=True)
    reader = read_once(db, _settings)
    checker = Connector(db, read_only=True, idle_close_seconds=0)
    try:
        checked = checker.run(_settings, transaction=False)
    finally:
        checker.close()
    own = connect(str(db), read_only=True)  # as `mixseek migrate` opens a mixseek-core file
    try:
        opened = _settings(own)
    finally:
        own.close()
    assert writer == reader == checked == opened == (False, False)


def test_a_sqlite_file_is_refused_by_a_writer_too(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    _sqlite_file(db)
    connector = Connector(db, read_only=False, idle_close_seconds=0)
    with pytest.raises(StorageError, match="a SQLite database, not a DuckDB database file"):
        connector.run(_settings, transaction=False)
    connector.close()
    assert sqlite3.connect(db).execute("SELECT status FROM executions").fetchall() == [("completed",)]


def _connect_calls(tree: ast.AST) -> list[int]:
    """Lines of `duckdb.connect(...)` calls."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "connect"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "duckdb"
    ]


def test_mixseek_opens_duckdb_only_through_duckdb_instance() -> None:
    calls = {
        str(path.relative_to(SRC)): lines
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "duckdb_instance.py"
        and (lines := _connect_calls(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert calls == {}, "open DuckDB with mixseek.storage.duckdb_instance.connect"
