"""Budgets and rate limits hold across all the workers of an execution, not per worker process."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from e2e.db import rows

RUN_GOVERNED = Path(__file__).with_name("run_governed.py")
TEAMS = ("t1", "t2", "t3", "t4")
WORKERS = 2


def write_workspace(root: Path, orchestrator_extra: str) -> Path:
    """Four teams (leader alone), one metric, and the judgment: two requests per team round."""
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    teams = "".join(f'[[orchestrator.teams]]\nconfig = "agents/{t}.toml"\n' for t in TEAMS)
    (configs / "orchestrator.toml").write_text(
        f"[orchestrator]\nmax_rounds = 1\nmin_rounds = 1\nmax_concurrent_teams = 4\n"
        f"retry_base_delay_seconds = 0.01\nretry_max_delay_seconds = 0.05\n{orchestrator_extra}\n{teams}",
        encoding="utf-8",
    )
    for team in TEAMS:
        (configs / "agents" / f"{team}.toml").write_text(
            f'[team]\nteam_id = "{team}"\nteam_name = "{team}"\n\n'
            f'[team.leader]\nmodel = "script:leader-{team}"\n',
            encoding="utf-8",
        )
    (configs / "evaluator.toml").write_text(
        '[evaluator]\nmodel = "script:metric"\n[[evaluator.metrics]]\nname = "coverage"\n', encoding="utf-8"
    )
    (configs / "judgment.toml").write_text('[judgment]\nmodel = "script:judgment"\n', encoding="utf-8")
    return root


def _run(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(RUN_GOVERNED), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


@contextmanager
def _workers(ws: Path, address: str, env: dict[str, str]) -> Iterator[None]:
    """WORKERS scripted workers taking one team round (or judgment) at a time each."""
    procs: list[subprocess.Popen[str]] = []
    try:
        for _ in range(WORKERS):
            proc = _run(["worker", "-w", str(ws), "--temporal-address", address, "--concurrency", "1"], env)
            procs.append(proc)
            assert proc.stderr is not None
            line = proc.stderr.readline()
            assert line.startswith("worker: serving"), line + proc.stderr.read()
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.communicate(timeout=120)


def _exec(ws: Path, address: str, env: dict[str, str], *more: str) -> dict[str, object]:
    args = ["exec", "最良の回答を", "-w", str(ws), "-f", "json", "--temporal-address", address, *more]
    client = _run(args, env)
    out, err = client.communicate(timeout=600)
    assert client.returncode == 0, err
    summary: dict[str, object] = json.loads(out)
    return summary


def _events(log: Path) -> list[tuple[str, str, str]]:
    return [(e, pid, model) for e, pid, model in (line.split() for line in log.read_text().splitlines())]


def test_a_budget_reached_with_two_workers_stops_with_overshoot_no_larger_than_in_flight(
    tmp_path: Path, temporal_address: str
) -> None:
    max_requests = 4
    ws = write_workspace(tmp_path / "ws", f"max_requests = {max_requests}")
    log = tmp_path / "calls.log"
    # both workers are sure to hold a team round at once: each leader waits for the other's
    env = {"GOVERNED_LOG": str(log), "GOVERNED_BARRIER": str(WORKERS)}
    with _workers(ws, temporal_address, env):
        summary = _exec(ws, temporal_address, env)

    assert summary["stop_reason"] == "budget"
    detail = re.fullmatch(
        rf"budget max_requests = {max_requests} reached \((\d+) spent\)", str(summary["stop_detail"])
    )
    assert detail is not None, summary["stop_detail"]
    db = ws / "mixseek.db"
    [(stored,)] = rows(db, "SELECT sum(requests)::INTEGER FROM model_calls")
    assert isinstance(stored, int)
    assert max_requests <= int(detail.group(1)) <= stored  # what was spent when a request was refused
    # each worker runs one team round at a time, one request at a time: at most WORKERS requests
    # are in flight, and the one whose usage reached the limit is not among those left over
    in_flight = WORKERS - 1
    assert max_requests <= stored <= max_requests + in_flight
    # every request made is stored, once
    made = [e for e in _events(log) if e[0] == "enter"]
    assert stored == len(made)
    assert len({pid for _, pid, _ in made}) == WORKERS  # both workers did make requests
    # a ledger per worker would have let each worker spend the whole budget: two team rounds
    # (leader and metric) on each, 2 x max_requests requests in all
    assert stored < WORKERS * max_requests


def test_a_rate_limit_holds_across_two_workers(tmp_path: Path, temporal_address: str) -> None:
    ws = write_workspace(tmp_path / "ws", "max_concurrent_requests_per_model = 1")
    log = tmp_path / "calls.log"
    # the first metric request stays in flight until the other worker asks for the metric too
    env = {"GOVERNED_LOG": str(log), "GOVERNED_BARRIER": str(WORKERS), "GOVERNED_HOLD": "script:metric"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        listen = f"127.0.0.1:{s.getsockname()[1]}"  # the service where it is told, not a default
    with _workers(ws, temporal_address, env):
        summary = _exec(ws, temporal_address, env, "--governor-listen", listen)
    assert summary["stop_reason"] == "finished"

    events = _events(log)
    inside: dict[str, int] = {}
    most: dict[str, int] = {}
    for event, _, model in events:
        if event in ("enter", "exit"):
            inside[model] = inside.get(model, 0) + (1 if event == "enter" else -1)
            most[model] = max(most.get(model, 0), inside[model])
    assert most == {model: 1 for model in most}  # never two requests of one model at once
    assert "script:metric" in most
    # and the other worker wanted the metric before the first holder let it go (its ask may be
    # logged before or after the holder's enter: the two processes race to the log), yet entered
    # only after that
    first = events.index(next(e for e in events if e[0] == "enter" and e[2] == "script:metric"))
    holder = events[first][1]
    released = events.index(("exit", holder, "script:metric"), first)
    assert any(e == "ask" and pid != holder and m == "script:metric" for e, pid, m in events[:released])
    other_enters = [
        i for i, (e, pid, m) in enumerate(events) if e == "enter" and pid != holder and m == "script:metric"
    ]
    assert other_enters and min(other_enters) > released
