"""One owner per execution: the lease, who is alive, and how readers see a dead owner's execution."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import psutil
import pytest

from mixseek.storage import AggregationStore, RecordNotFoundError
from mixseek.storage.lease import STALE_AFTER_SECONDS, ExecutionOwnedError, ExecutionOwner
from mixseek.storage.schema import MIGRATIONS, migrate

HOST = socket.gethostname()


def dead_pid() -> int:
    """The pid of a process that has ended and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def owner(pid: int | None = None, host: str = HOST, started: float | None = None) -> ExecutionOwner:
    me = ExecutionOwner.this_process()
    if pid is None:
        return me
    return ExecutionOwner(pid, host, me.token, started)


async def set_heartbeat(store: AggregationStore, execution_id: str, at: datetime) -> None:
    """The owner's last heartbeat was at `at` (and the execution started a minute before)."""

    def work(conn: duckdb.DuckDBPyConnection) -> None:
        conn.execute(
            "UPDATE execution_leases SET heartbeat_at = ? WHERE execution_id = ?", [at, execution_id]
        )
        conn.execute(
            "UPDATE executions SET started_at = ? WHERE execution_id = ?",
            [at - timedelta(minutes=1), execution_id],
        )

    await store._call(work, write=True)


async def test_the_creator_owns_a_new_execution(store: AggregationStore) -> None:
    me = owner()
    await store.create_execution("exec-1", "p", {}, owner=me)
    record = await store.get_execution("exec-1")
    assert record is not None and record.owner is not None
    assert (record.status, record.ended_at) == ("running", None)
    assert (record.owner.pid, record.owner.host, record.owner.alive) == (os.getpid(), HOST, True)
    assert record.owner.process_started == psutil.Process().create_time()
    assert record.owner.acquired_at == record.owner.heartbeat_at


async def test_a_living_owner_keeps_its_execution(store: AggregationStore) -> None:
    await store.create_execution("exec-1", "p", {}, owner=owner())
    lease = (await store.get_execution("exec-1")).owner  # type: ignore[union-attr]
    assert lease is not None
    with pytest.raises(ExecutionOwnedError) as caught:
        await store.claim_execution("exec-1", owner())  # another owner, even in this process
    assert str(caught.value) == (
        f"execution 'exec-1' is running in process {os.getpid()} on host {HOST} "
        f"since {lease.acquired_at:%Y-%m-%d %H:%M:%S} UTC"
    )
    with pytest.raises(ExecutionOwnedError):
        await store.renew_lease("exec-1", owner())
    with pytest.raises(ExecutionOwnedError):
        await store.finish_execution("exec-1", "completed", {}, owner=owner())
    record = await store.get_execution("exec-1")
    assert record is not None and (record.status, record.owner) == ("running", lease)


@pytest.mark.parametrize(
    "gone",
    [
        pytest.param(lambda: owner(dead_pid()), id="process ended"),
        pytest.param(lambda: owner(os.getpid(), started=1.0), id="pid reused by another process"),
    ],
)
async def test_an_owner_gone_on_this_host_leaves_an_interrupted_execution(
    store: AggregationStore, gone: object
) -> None:
    dead = gone()  # type: ignore[operator]
    await store.create_execution("exec-1", "p", {}, owner=dead)
    beat = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
    await set_heartbeat(store, "exec-1", beat)
    record = await store.get_execution("exec-1")
    assert record is not None and record.owner is not None
    assert (record.status, record.owner.alive, record.owner.pid) == ("interrupted", False, dead.pid)
    assert record.ended_at == beat  # its last sign of life
    last_call = beat + timedelta(seconds=5)
    await store.record_model_calls("exec-1", [{"site": "judgment", "model": "m", "created_at": last_call}])
    assert (await store.get_execution("exec-1")).ended_at == last_call  # type: ignore[union-attr]

    me = owner()
    await store.claim_execution("exec-1", me)
    claimed = await store.get_execution("exec-1")
    assert claimed is not None and claimed.owner is not None
    assert (claimed.status, claimed.ended_at, claimed.owner.pid) == ("running", None, os.getpid())
    await store.renew_lease("exec-1", me)
    await store.finish_execution("exec-1", "completed", {"done": True}, owner=me)
    done = await store.get_execution("exec-1")
    assert done is not None and (done.status, done.owner, done.summary) == ("completed", None, {"done": True})


async def test_an_owner_on_another_host_is_alive_until_its_heartbeat_is_stale(
    store: AggregationStore,
) -> None:
    await store.create_execution("exec-1", "p", {}, owner=owner(12345, host="elsewhere"))
    now = datetime.now(UTC)
    await set_heartbeat(store, "exec-1", now - timedelta(seconds=STALE_AFTER_SECONDS / 2))
    with pytest.raises(ExecutionOwnedError, match="is running in process 12345 on host elsewhere since"):
        await store.claim_execution("exec-1", owner())

    stale = now - timedelta(seconds=STALE_AFTER_SECONDS + 1)
    await set_heartbeat(store, "exec-1", stale)
    record = await store.get_execution("exec-1")
    assert record is not None and (record.status, record.ended_at) == ("interrupted", stale)
    await store.claim_execution("exec-1", owner())


async def test_finished_execution_cannot_be_claimed(store: AggregationStore) -> None:
    me = owner()
    await store.create_execution("exec-1", "p", {}, owner=me)
    await store.finish_execution("exec-1", "completed", {}, owner=me)
    with pytest.raises(RecordNotFoundError, match="has ended; only running or interrupted ones"):
        await store.claim_execution("exec-1", owner())
    with pytest.raises(RecordNotFoundError, match="no execution 'nope'"):
        await store.claim_execution("nope", owner())


async def test_running_execution_of_a_file_without_leases_reads_interrupted(db_path: Path) -> None:
    """Left `running` by a process of a mixseek that kept no lease: nobody runs it any more."""
    db_path.parent.mkdir(parents=True)
    conn = duckdb.connect(str(db_path))
    migrate(conn, str(db_path), MIGRATIONS[:2])
    started = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
    conn.execute(
        "INSERT INTO executions (execution_id, user_prompt, started_at) VALUES ('exec-1', 'p', ?)", [started]
    )
    conn.close()
    async with AggregationStore(db_path) as store:
        record = await store.get_execution("exec-1")
        assert record is not None
        assert (record.status, record.owner, record.ended_at) == ("interrupted", None, started)
        await store.claim_execution("exec-1", owner())
        assert (await store.get_execution("exec-1")).status == "running"  # type: ignore[union-attr]
