"""Execution rows, the default database location, and read-only stores."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest

from mixseek.errors import ConfigError
from mixseek.storage import AggregationStore, RecordNotFoundError, StorageError

from .support import record


async def test_execution_lifecycle(store: AggregationStore) -> None:
    before = datetime.now(UTC)
    await store.create_execution("exec-1", "Write a haiku", {"max_rounds": 3, "teams": ["a", "b"]})
    running = await store.get_execution("exec-1")
    assert running is not None
    assert (running.execution_id, running.user_prompt, running.status) == (
        "exec-1",
        "Write a haiku",
        "running",
    )
    assert running.config == {"max_rounds": 3, "teams": ["a", "b"]}
    assert (running.ended_at, running.summary) == (None, None)
    assert before <= running.started_at <= datetime.now(UTC)

    end = datetime(2025, 6, 1, 9, 30, tzinfo=timezone(timedelta(hours=9)))
    await store.finish_execution(
        "exec-1", "partial_failure", {"best_team": "a", "failed": ["b"]}, ended_at=end
    )
    done = await store.get_execution("exec-1")
    assert done is not None
    assert done.status == "partial_failure"
    assert done.summary == {"best_team": "a", "failed": ["b"]}
    assert done.ended_at == datetime(2025, 6, 1, 0, 30, tzinfo=UTC)
    assert done.started_at == running.started_at


async def test_unknown_execution(store: AggregationStore) -> None:
    assert await store.get_execution("nope") is None
    with pytest.raises(RecordNotFoundError, match="no execution 'nope'"):
        await store.finish_execution("nope", "completed", {})


async def test_finish_rejects_unknown_status(store: AggregationStore) -> None:
    await store.create_execution("exec-1", "p", {})
    with pytest.raises(ValueError, match="status must be one of running, completed"):
        await store.finish_execution("exec-1", "done", {})  # type: ignore[arg-type]


async def test_duplicate_execution_is_a_constraint_error(store: AggregationStore) -> None:
    await store.create_execution("exec-1", "p", {})
    with pytest.raises(duckdb.ConstraintException):
        await store.create_execution("exec-1", "again", {})


async def test_list_executions_newest_first(store: AggregationStore) -> None:
    for number in range(1, 5):
        await store.create_execution(f"exec-{number}", f"prompt {number}", {})
    listed = await store.list_executions()
    assert [e.execution_id for e in listed] == ["exec-4", "exec-3", "exec-2", "exec-1"]
    assert [e.execution_id for e in await store.list_executions(limit=2)] == ["exec-4", "exec-3"]


def test_missing_workspace_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        AggregationStore()
    assert str(caught.value) == "MIXSEEK_WORKSPACE: not set: pass db_path or set MIXSEEK_WORKSPACE"


async def test_default_path_is_in_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIXSEEK_WORKSPACE", str(tmp_path / "new-ws"))
    async with AggregationStore() as store:
        assert store.db_path == tmp_path / "new-ws" / "mixseek.db"
        await store.create_execution("exec-1", "p", {})
    assert (tmp_path / "new-ws" / "mixseek.db").is_file()


async def test_read_only_store_reads_but_refuses_writes(store: AggregationStore, db_path: Path) -> None:
    await store.save_round(record("team-a", 1, 75.0))
    store.close()
    async with AggregationStore(db_path, read_only=True) as reader:
        assert await reader.get_leader_board_ranking("exec-1") == [
            {"team_id": "team-a", "team_name": "Team team-a", "max_score": 75.0, "total_rounds": 1}
        ]
        assert not reader.is_open  # readers release the file after each operation by default
        assert await reader.get_leader_board_ranking("exec-1", max_round=0) == []
        with pytest.raises(StorageError, match="store is read-only"):
            await reader.create_execution("exec-2", "p", {})


async def test_read_only_store_needs_an_existing_file(tmp_path: Path) -> None:
    reader = AggregationStore(tmp_path / "absent.db", read_only=True)
    with pytest.raises(StorageError, match=r"absent\.db: no database file to read"):
        await reader.get_leader_board_ranking("exec-1")
    assert not (tmp_path / "absent.db").exists()


async def test_idle_connection_is_closed(db_path: Path) -> None:
    async with AggregationStore(db_path, idle_close_seconds=0.05) as store:
        await store.create_execution("exec-1", "p", {})
        await store.get_execution("exec-1")
        assert store.is_open
        assert store.connections_opened == 1
        for _ in range(100):
            if not store.is_open:
                break
            await asyncio.sleep(0.01)
        assert not store.is_open
        await store.get_execution("exec-1")
        assert store.connections_opened == 2


async def test_zero_idle_closes_after_every_operation(db_path: Path) -> None:
    store = AggregationStore(db_path, idle_close_seconds=0)
    await store.create_execution("exec-1", "p", {})
    assert not store.is_open
    await store.get_execution("exec-1")
    assert (store.is_open, store.connections_opened) == (False, 2)
