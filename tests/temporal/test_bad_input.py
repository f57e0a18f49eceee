"""Bad input for the temporal engine: one line, exit 2, nothing started."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek import __version__
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.orchestrator.temporal.worker import running_executions

from .cluster import mixseek, served, spawn, spawn_worker


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _no_execution(ws: Path) -> None:
    db = ws / "mixseek.db"
    assert not db.exists() or rows(db, "SELECT count(*) FROM executions") == [(0,)]


def test_unreachable_address(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws")
    address = f"127.0.0.1:{_closed_port()}"
    done = mixseek("exec", "task", "-w", str(ws), "--engine", "temporal", "--temporal-address", address)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: --temporal-address: cannot reach a Temporal server at {address} (")
    _no_execution(ws)


def test_missing_temporal_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setattr(sys, "executable", str(bare / "python"))
    monkeypatch.setenv("PATH", str(bare))
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "task", "-w", str(ws), "--engine", "temporal"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --engine temporal: the `temporal` CLI is not installed (pip install 'mixseek[temporal]'), "
        "or give --temporal-address HOST:PORT"
    )
    _no_execution(ws)
    assert not (ws / "temporal").exists()


def test_engine_options_need_the_temporal_engine(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "task", "-w", str(ws), "--workers", "2"])
        assert result.exit_code == 2
        assert result.stderr.strip() == "error: --workers: only with --engine temporal"
        result = runner.invoke(app, ["exec", "task", "-w", str(ws), "--engine", "mars"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --engine: 'mars': must be local or temporal"


def test_worker_with_another_config_is_refused(tmp_path: Path, temporal_address: str) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    other = write_workspace(tmp_path / "other", max_rounds=3)
    # an execution waits for workers of its configuration
    client = spawn("exec", "task", "-w", str(ws), "-f", "json", "--temporal-address", temporal_address)
    try:
        while not asyncio.run(running_executions(temporal_address)):
            assert client.poll() is None, client.communicate()
            time.sleep(0.2)
        refused = mixseek("worker", "-w", str(other), "--temporal-address", temporal_address)
        assert refused.returncode == 2
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1, refused.stderr
        orchestrator_file = other / "configs" / "orchestrator.toml"
        assert lines[0].startswith(f"error: {orchestrator_file}: workspace config hash ")
        assert "differs from the running execution's" in lines[0]
        # the same configs on another mixseek version: its team rounds could differ
        refused = mixseek(
            "worker", "-w", str(ws), "--temporal-address", temporal_address, env={"SCRIPTED_VERSION": "0.0.1"}
        )
        assert refused.returncode == 2
        assert refused.stderr.strip() == (
            f"error: {ws / 'configs' / 'orchestrator.toml'}: this worker is mixseek 0.0.1, the running "
            f"execution's `mixseek exec` is {__version__}; give the worker the same mixseek version"
        )
        # a worker with the client's configs is accepted and finishes the execution
        done = served(client, spawn_worker(ws, temporal_address))
        assert done.returncode == 0, done.stderr
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def test_a_worker_started_for_other_configs_is_refused_before_it_connects(
    tmp_path: Path, runner: CliRunner
) -> None:
    """A `mixseek exec` starts its own workers for its config hash: one whose workspace no longer
    has those configs (edited in between) serves nothing."""
    ws = write_workspace(tmp_path / "ws")
    address = f"127.0.0.1:{_closed_port()}"  # never reached: refused first
    with override_models(World().models()):
        result = runner.invoke(
            app, ["worker", "-w", str(ws), "--temporal-address", address, "--started-for", "ab" * 32]
        )
    assert result.exit_code == 2
    orchestrator_file = ws / "configs" / "orchestrator.toml"
    assert result.stderr.strip().startswith(f"error: {orchestrator_file}: workspace config hash ")
    assert result.stderr.strip().endswith(
        f"differs from that of the `mixseek exec` that started this worker ({'ab' * 8}): the configs changed"
    )
    assert len(result.stderr.strip().splitlines()) == 1
