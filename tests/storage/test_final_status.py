"""An execution's final status goes into the database file itself, not into its write-ahead log
(`storage._connection`): a checkpoint that fails afterwards (a full disk) cannot leave a status
stored that the process could not report, and one that fails as it is written keeps none of it."""

from __future__ import annotations

from pathlib import Path

from mixseek.storage import AggregationStore

from .support import record


async def test_the_final_status_is_committed_into_the_file_not_its_log(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    wal = db.with_name(db.name + ".wal")
    store = AggregationStore(db, idle_close_seconds=3600)  # kept open: nothing is checkpointed on close
    try:
        await store.create_execution("exec-1", "task", {})
        await store.save_round(record("alpha", 1, 70.0))
        assert wal.exists() and wal.stat().st_size > 0  # ordinary writes are in the log until a checkpoint
        await store.finish_execution("exec-1", "completed", {"status": "completed"})
        assert store.is_open
        assert not wal.exists() or wal.stat().st_size == 0, "the final status went to the log"
        assert (await store.get_execution("exec-1")).status == "completed"  # type: ignore[union-attr]
        # the next write goes to the log as before
        await store.save_round(record("beta", 1, 60.0))
        assert wal.exists() and wal.stat().st_size > 0
    finally:
        await store.aclose()
