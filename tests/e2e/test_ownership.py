"""One process at a time runs an execution: resumes, killed owners, and what `runs` shows."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.errors import MixseekError
from mixseek.llm import override_models
from mixseek.orchestrator import orchestrator as orchestrator_module
from mixseek.orchestrator.orchestrator import Orchestrator
from mixseek.storage import AggregationStore, ExecutionRecord, StorageError

from .db import rows
from .scripted import World, write_workspace
from .test_faults import BOARD, scripted_cli, uninterrupted

PROMPT = "最良の回答を"


def read_execution(db: Path, execution_id: str) -> ExecutionRecord:
    async def read() -> ExecutionRecord | None:
        async with AggregationStore(db, read_only=True) as store:
            return await store.get_execution(execution_id)

    record = asyncio.run(read())
    assert record is not None
    return record


def requests_stored(db: Path, execution_id: str) -> int:
    async def read() -> int:
        async with AggregationStore(db, read_only=True) as store:
            return (await store.get_usage_totals(execution_id)).requests

    return asyncio.run(read())


def killed_in_round_2(ws: Path) -> str:
    """An execution whose process was SIGKILLed at its first model call of round 2."""
    killed = scripted_cli("exec", PROMPT, "-w", str(ws), "-f", "json", env={"SCRIPTED_KILL_AT": "*:2"})
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    ((execution_id, status),) = rows(ws / "mixseek.db", "SELECT execution_id, status FROM executions")
    assert status == "running"  # as stored: nobody was left to mark it
    return str(execution_id)


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120  # only a bound for a broken run, never reached otherwise
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"the process ended before reaching {path.name}: {proc.communicate()[1]}")
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def test_a_second_resume_of_a_running_execution_exits_2_naming_its_owner(
    tmp_path: Path, runner: CliRunner
) -> None:
    expected_board, _ = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws")
    db = ws / "mixseek.db"
    execution_id = killed_in_round_2(ws)
    gate = tmp_path / "gate"
    first = scripted_cli(
        "exec",
        "--resume",
        execution_id,
        "-w",
        str(ws),
        "-f",
        "json",
        env={"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "3"},
    )
    try:
        wait_for(gate.with_name("gate.waiting"), first)  # the first resume is mid-run, in round 3
        owner = read_execution(db, execution_id).owner
        assert owner is not None and (owner.pid, owner.alive) == (first.pid, True)
        spent = requests_stored(db, execution_id)

        second = scripted_cli("exec", "--resume", execution_id, "-w", str(ws), "-f", "json")
        out, err = second.communicate(timeout=120)
        assert second.returncode == 2, err
        assert (out, err) == (
            "",
            f"error: --resume: execution '{execution_id}' is running in process {first.pid} on host "
            f"{socket.gethostname()} since {owner.acquired_at:%Y-%m-%d %H:%M:%S} UTC\n",
        )
        assert requests_stored(db, execution_id) == spent  # the second one called no model
        listed = runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"])
        assert json.loads(listed.stdout)[0]["status"] == "running"
    finally:
        gate.touch()
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert json.loads(out)["status"] == "completed"
    assert rows(db, BOARD) == expected_board
    assert rows(db, "SELECT status FROM executions") == [("completed",)]
    assert rows(db, "SELECT count(*) FROM execution_leases") == [(0,)]


def test_killed_run_lists_as_interrupted_with_the_resume_command_and_resumes(
    tmp_path: Path, runner: CliRunner
) -> None:
    expected_board, _ = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws")
    db = ws / "mixseek.db"
    execution_id = killed_in_round_2(ws)
    resume = f"mixseek exec --resume {execution_id} -w {ws}"

    listed = runner.invoke(app, ["runs", "list", "-w", str(ws)])
    assert listed.exit_code == 0, listed.output
    _, entry, *hint = listed.stdout.splitlines()
    assert entry.split()[:2] == [execution_id, "interrupted"]
    assert hint == ["", "interrupted, resume with:", f"  {resume}"]

    # the duration stops at the last sign of life: the lease's heartbeat or a later stored model call
    ((started, heartbeat, last_call),) = rows(
        db,
        "SELECT e.started_at, l.heartbeat_at, (SELECT max(created_at) FROM model_calls) "
        "FROM executions e JOIN execution_leases l USING (execution_id)",
    )
    assert (
        isinstance(started, datetime) and isinstance(heartbeat, datetime) and isinstance(last_call, datetime)
    )
    duration = round((max(heartbeat, last_call) - started).total_seconds(), 3)
    for _ in range(2):
        entries = json.loads(runner.invoke(app, ["runs", "list", "-w", str(ws), "-f", "json"]).stdout)
        assert (entries[0]["status"], entries[0]["duration_seconds"]) == ("interrupted", duration)

    shown = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[:2] == [
        f"execution {execution_id}: interrupted",
        f"resume with: {resume}",
    ]
    doc = json.loads(runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"]).stdout)
    assert (doc["status"], doc["duration_seconds"]) == ("interrupted", duration)

    resumed = scripted_cli("exec", "--resume", execution_id, "-w", str(ws), "-f", "json")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert json.loads(out)["status"] == "completed"
    assert rows(db, BOARD) == expected_board
    assert rows(db, "SELECT count(*) FROM execution_leases") == [(0,)]
    listed = runner.invoke(app, ["runs", "list", "-w", str(ws)])
    assert listed.stdout.splitlines()[1].split()[:2] == [execution_id, "completed"]
    assert "resume with" not in listed.stdout


# -- in one process: the orchestrator's side of the lease ------------------------------


class Gate(WrapperModel):
    """A leader that, from round 2 on, says it is there and waits to be let through."""

    def __init__(self, wrapped: Model, reached: asyncio.Event, through: asyncio.Event) -> None:
        super().__init__(wrapped)
        self.reached, self.through = reached, through

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        if "## ラウンド 1" in str(messages[0]):
            self.reached.set()
            await self.through.wait()
        return await super().request(messages, model_settings, model_request_parameters)


def gated_models(reached: asyncio.Event, through: asyncio.Event) -> dict[str, Model]:
    models = World().models()
    return {
        name: Gate(model, reached, through) if name.startswith("script:leader-") else model
        for name, model in models.items()
    }


def orchestrator(ws: Path, store: AggregationStore | None = None) -> Orchestrator:
    config = load_execution_config(Workspace(ws), ws / "configs" / "orchestrator.toml")
    return Orchestrator(config, store=store)


async def test_a_running_owner_beats_and_stops_without_finishing_when_its_lease_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(orchestrator_module, "HEARTBEAT_SECONDS", 0.01)
    ws = write_workspace(tmp_path / "ws")
    reached, through = asyncio.Event(), asyncio.Event()
    with override_models(gated_models(reached, through)):
        orch = orchestrator(ws)
        run = asyncio.create_task(orch.run(PROMPT, execution_id="exec-1"))
        await reached.wait()
        while True:  # the running owner refreshes its heartbeat
            lease = (await orch.store.get_execution("exec-1")).owner  # type: ignore[union-attr]
            assert lease is not None and lease.alive
            if lease.heartbeat_at > lease.acquired_at:
                break
            await asyncio.sleep(0.01)
        taken_at = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)

        def take_over(conn: Any) -> None:  # another host's process claims it meanwhile
            conn.execute(
                "UPDATE execution_leases SET owner_token = 'theirs', pid = 4242, host = 'elsewhere', "
                "acquired_at = ?, heartbeat_at = now()",
                [taken_at],
            )

        await orch.store._call(take_over, write=True)
        with pytest.raises(MixseekError) as caught:
            await run
    assert str(caught.value) == (
        "stopped without finishing: execution 'exec-1' is running in process 4242 on host elsewhere "
        "since 2025-01-01 12:00:00 UTC"
    )
    db = ws / "mixseek.db"
    assert rows(db, "SELECT status FROM executions") == [("running",)]  # the new owner's to finish
    assert rows(db, "SELECT pid FROM execution_leases") == [(4242,)]


class StoreFailingInRound2(AggregationStore):
    async def mark_rounds_started(self, execution_id: str, round_number: int, team_ids: Any) -> None:
        if round_number == 2:
            raise StorageError(f"{self.db_path}: cannot write: No space left on device")
        await super().mark_rounds_started(execution_id, round_number, team_ids)


def test_a_run_that_fails_midway_leaves_its_execution_interrupted_not_running(
    tmp_path: Path, runner: CliRunner
) -> None:
    expected_board, _ = uninterrupted(tmp_path, runner)
    ws = write_workspace(tmp_path / "ws")
    db = ws / "mixseek.db"
    with override_models(World().models()):
        with pytest.raises(StorageError, match="No space left on device"):
            asyncio.run(orchestrator(ws, StoreFailingInRound2(db)).run(PROMPT, execution_id="exec-1"))
        assert rows(db, "SELECT status FROM executions") == [("interrupted",)]
        assert rows(db, "SELECT count(*) FROM execution_leases") == [(0,)]
        summary = asyncio.run(orchestrator(ws).resume("exec-1"))
    assert summary.status == "completed"
    assert rows(db, BOARD) == expected_board
