"""`check_store`: a file that passes takes an execution's writes; a damaged one is named, in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from mixseek.storage import AggregationStore, StorageError
from mixseek.storage.errors import StoreDamagedError
from mixseek.storage.health import check_store
from store_damage import DAMAGES

from .support import record

BLOCK_HEADERS = 3 * 4096


async def _stored_execution(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.create_execution("e1", "the task", {"hash": "h"})
        await store.save_round(record("alpha", execution_id="e1"))
        await store.finish_execution("e1", "completed", {"best": "alpha"})


def _many_executions(db: Path) -> None:
    """Enough rows that the tables' indexes take blocks of their own."""
    conn = duckdb.connect(str(db))
    try:
        conn.execute(
            "INSERT INTO executions (execution_id, user_prompt, status, config, started_at) "
            "SELECT 'old-' || i, 'task ' || i, 'completed', '{}', TIMESTAMPTZ '2025-01-01' "
            "FROM range(20000) t(i)"
        )
    finally:
        conn.close()


async def _use(db: Path) -> None:
    """What an execution does to the file: read the board, write a new execution and its round."""
    async with AggregationStore(db) as store:
        assert len(await store.list_executions(limit=10)) == 10
        assert await store.get_execution("e1") is not None
        await store.get_round_histories("e1")
        await store.get_leader_board_ranking("e1")
        await store.create_execution("e2", "another task", {"hash": "h"})
        await store.save_round(record("alpha", execution_id="e2"))
        await store.finish_execution("e2", "completed", {})
    conn = duckdb.connect(str(db))
    try:
        conn.execute("CHECKPOINT")
    finally:
        conn.close()


async def test_a_new_file_is_created_and_reported_usable(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    check = check_store(db)
    assert db.is_file()
    assert check.schema_version >= 1
    assert check.describe().startswith(f"{db}: readable and writable (schema version ")


@pytest.mark.parametrize("damage", sorted(DAMAGES))
async def test_each_kind_of_damage_is_one_line_naming_the_file(tmp_path: Path, damage: str) -> None:
    db = tmp_path / "mixseek.db"
    await _stored_execution(db)
    DAMAGES[damage](db)
    with pytest.raises(StorageError) as caught:
        check_store(db)
    message = str(caught.value)
    named = f"{db}.wal" if damage == "corrupt-wal" else str(db)
    assert message.startswith(f"{named}: ")
    assert "\n" not in message
    if damage != "directory":
        assert isinstance(caught.value, StoreDamagedError)


async def test_any_damaged_block_is_found_or_harmless(tmp_path: Path) -> None:
    """Damage every block in turn (data, metadata, indexes): either the check reports it, or
    an execution's reads and writes all succeed. DuckDB reads a block only when a query needs
    it, so a check that only opened the file would pass damage found by the first save."""
    pristine = tmp_path / "pristine.db"
    await _stored_execution(pristine)
    _many_executions(pristine)
    conn = duckdb.connect(str(pristine), read_only=True)
    try:
        row = conn.execute("SELECT block_size, total_blocks FROM pragma_database_size()").fetchone()
    finally:
        conn.close()
    assert row is not None
    block_size, blocks = int(row[0]), int(row[1])
    found = 0
    for block in range(blocks):
        db = tmp_path / f"block-{block}" / "mixseek.db"
        db.parent.mkdir()
        shutil.copy(pristine, db)
        start = BLOCK_HEADERS + block * block_size + 8 + 16
        with db.open("r+b") as fh:
            fh.seek(start)
            original = fh.read(32)
            fh.seek(start)
            fh.write(bytes(b ^ 0xFF for b in original))
        try:
            check_store(db)
        except StoreDamagedError:
            found += 1
            continue
        await _use(db)  # the check passed: then nothing an execution does may fail
    assert found >= 1


async def test_a_read_only_check_changes_nothing_and_still_finds_damage(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    await _stored_execution(db)
    before = db.read_bytes()
    assert check_store(db, write=False).rows > 0
    assert db.read_bytes() == before
    assert not db.with_name("mixseek.db.wal").exists()
    DAMAGES["flipped-bytes"](db)
    with pytest.raises(StoreDamagedError, match=r"the database file is damaged \(Corrupt database file"):
        check_store(db, write=False)
    with pytest.raises(StorageError, match="no database file to read"):
        check_store(tmp_path / "absent.db", write=False)
