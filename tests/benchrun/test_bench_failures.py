"""`mixseek bench` when team rounds fail: a provider on 127.0.0.1 that refuses requests with HTTP
400 and echoes the API key in its error (as a misbehaving proxy might).

Each failed team round is one line of the progress, key redacted, never a traceback; the
traceback goes to logs/mixseek.log, and with `--verbose` to stderr, redacted both. The exit code
follows `exec`'s: 1 when some run failed but another was scored, 2 when no run was scored.
The CLI runs in a process of its own, as a user runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import fake_openai, write_fake_workspace

KEY = "sk-proj-BENCHSECRET0123456789"
FRAGMENT = "BENCHSECRET"  # what must appear nowhere, down to a cropped prefix
REDACTED = "[REDACTED:OPENAI_API_KEY]"
TASKS = '{"id": "t1", "prompt": "調べて 1"}\n{"id": "t2", "prompt": "調べて 2"}\n'
FAILURE = (
    "team solo round 1 failed: ModelRequestRejectedError: status_code: 400, model_name: fake-gpt, body: "
    "{'message': 'try again (Bearer [REDACTED:OPENAI_API_KEY])', 'type': 'rate_limit'}"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = write_fake_workspace(tmp_path / "ws")
    (ws / "tasks.jsonl").write_text(TASKS, encoding="utf-8")
    return ws


def run_bench(ws: Path, *args: str, **server_options: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIXSEEK_", "OPENAI_"))}
    with fake_openai(echo_auth=True, fail_status=400, **server_options) as server:
        proc = subprocess.run(
            [sys.executable, "-m", "mixseek.cli", "bench", str(ws / "tasks.jsonl"), "-w", str(ws), *args],
            env={**env, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert server.requests and all(r["_auth"] == f"Bearer {KEY}" for r in server.requests)
    assert FRAGMENT not in proc.stdout + proc.stderr
    return proc


def assert_logged(ws: Path) -> None:
    """The tracebacks are kept in the workspace's log, redacted."""
    log = (ws / "logs" / "mixseek.log").read_text(encoding="utf-8")
    assert "Traceback (most recent call last):" in log and REDACTED in log
    assert FRAGMENT not in log


def progress(stderr: str) -> tuple[str, list[str], list[str]]:
    """The bench id, the execution ids in the order they started, and the lines of stderr."""
    lines = stderr.splitlines()
    bench_id = lines[0].split()[1].rstrip(":")
    executions = re.findall(r": execution (\S+) started$", stderr, re.M)
    return bench_id, executions, lines


def test_a_failed_round_is_one_redacted_line_and_exit_1(ws: Path) -> None:
    # the first request is the first run's leader: that run fails, the second is scored
    proc = run_bench(ws, "-f", "json", fail_first=1)
    bench_id, (e1, e2), lines = progress(proc.stderr)
    assert lines == [
        f"bench {bench_id}: 2 task(s) × 1 repeat(s) = 2 run(s)",
        f"[1/2] task 't1' repeat 1: execution {e1} started",
        f"[1/2] task 't1' repeat 1: {FAILURE}",
        f"[1/2] task 't1' repeat 1: execution {e1} failed",
        f"[2/2] task 't2' repeat 1: execution {e2} started",
        f"[2/2] task 't2' repeat 1: execution {e2} completed",
        f"partial failure: bench {bench_id}: 1 of 2 run(s) did not end cleanly (1 failed); "
        f"tracebacks in {ws / 'logs' / 'mixseek.log'}",
    ]
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["runs"] == {"planned": 2, "scored": 1, "unscored": 1, "missing": 0}
    statuses = [(e["task_id"], e["status"]) for e in report["executions"]]
    assert statuses == [("t1", "failed"), ("t2", "completed")]
    assert_logged(ws)


def test_no_run_scored_is_exit_2_with_one_error_line(ws: Path) -> None:
    proc = run_bench(ws, fail_always=True)
    bench_id, (e1, e2), lines = progress(proc.stderr)
    assert lines == [
        f"bench {bench_id}: 2 task(s) × 1 repeat(s) = 2 run(s)",
        f"[1/2] task 't1' repeat 1: execution {e1} started",
        f"[1/2] task 't1' repeat 1: {FAILURE}",
        f"[1/2] task 't1' repeat 1: execution {e1} failed",
        f"[2/2] task 't2' repeat 1: execution {e2} started",
        f"[2/2] task 't2' repeat 1: {FAILURE}",
        f"[2/2] task 't2' repeat 1: execution {e2} failed",
        f"error: bench {bench_id}: no run was scored (2 failed), nothing to compare; "
        f"tracebacks in {ws / 'logs' / 'mixseek.log'}",
    ]
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"bench {bench_id}: 0 of 2 run(s) scored")  # the report all the same
    assert_logged(ws)


def test_verbose_shows_the_traceback_redacted(ws: Path) -> None:
    proc = run_bench(ws, "--verbose", "-f", "json", fail_first=1)
    assert proc.returncode == 1
    assert f"[1/2] task 't1' repeat 1: {FAILURE}\n" in proc.stderr
    warning = proc.stderr.index(
        "WARNING mixseek.round_controller: team solo round 1 failed: ModelRequestRejectedError"
    )
    traceback = proc.stderr[warning:]
    assert "Traceback (most recent call last):" in traceback
    # the chained exception of the OpenAI SDK, with the echoed key replaced
    assert "openai.BadRequestError: Error code: 400" in traceback
    assert f"'try again (Bearer {REDACTED})'" in traceback
    assert_logged(ws)
