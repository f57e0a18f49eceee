"""The Temporal engine from the Python API: what `mixseek exec --engine temporal --workers 2` starts."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import psutil
import pytest

from mixseek import (
    EvaluatorSettings,
    InputError,
    JudgmentSettings,
    LeaderAgentConfig,
    Mixseek,
    TeamConfig,
    load_workspace,
)

from .cluster import stored_rows

# each team round waits until two processes have run one: only two workers together finish it
STEPS = """
import os, time
from pathlib import Path


def mark(document):
    pids = os.environ.get("API_ENGINE_PIDS")
    if pids:
        Path(pids, str(os.getpid())).touch()
        deadline = time.monotonic() + 120
        while len(os.listdir(pids)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    return "Insulate the loft; seal the draughts; switch off standby."
"""


def _workspace(root: Path) -> Path:
    agents = root / "configs" / "agents"
    agents.mkdir(parents=True)
    (root / "configs" / "orchestrator.toml").write_text(
        "[orchestrator]\nmax_rounds = 1\nmax_concurrent_teams = 2\n"
        + "".join(f'[[orchestrator.teams]]\nconfig = "agents/{team}.toml"\n' for team in "ab"),
        encoding="utf-8",
    )
    for team in ("a", "b"):
        (agents / f"{team}.toml").write_text(
            f'[team]\nteam_id = "{team}"\nteam_name = "{team.upper()}"\n[workflow]\n'
            '[[workflow.steps]]\nid = "mark"\n[[workflow.steps.executors]]\nname = "mark"\n'
            'function = "steps.py:mark"\n',
            encoding="utf-8",
        )
    (agents / "steps.py").write_text(STEPS, encoding="utf-8")
    (root / "configs" / "evaluator.toml").write_text(
        '[evaluator]\nmodel = "test"\n[[evaluator.metrics]]\nname = "relevance"\n', encoding="utf-8"
    )
    (root / "configs" / "judgment.toml").write_text('[judgment]\nmodel = "test"\n', encoding="utf-8")
    return root


def test_run_with_two_workers_on_a_dev_server_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path / "ws")
    local_ws = shutil.copytree(ws, tmp_path / "local")
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("API_ENGINE_PIDS", str(pids))  # the started workers inherit it

    summary = load_workspace(ws).run_sync("Cut a household's energy use.", engine="temporal", workers=2)

    assert summary.status == "completed"
    # both workers took a team round: two processes, neither of them this one
    marked = {int(p.name) for p in pids.iterdir()}
    assert len(marked) == 2 and os.getpid() not in marked
    # together they run as many team rounds at once as max_concurrent_teams (2), not 8 each
    for n in (1, 2):
        first = (ws / "logs" / f"temporal-worker-{n}.log").read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("worker: serving") and first.endswith(", 1 at once)"), first
    assert (ws / "temporal" / "dev-server.db").is_file()

    monkeypatch.delenv("API_ENGINE_PIDS")
    local = load_workspace(local_ws).run_sync("Cut a household's energy use.")
    assert summary.leaderboard == local.leaderboard
    assert stored_rows(ws / "mixseek.db") == stored_rows(local_ws / "mixseek.db")


def test_workers_need_the_configuration_of_the_workspace_files(tmp_path: Path) -> None:
    """The workers load the workspace's files: a team made in code would never reach them."""
    ws = _workspace(tmp_path / "ws")
    team = TeamConfig(team_id="solo", team_name="Solo", leader=LeaderAgentConfig(model="test"))
    mx = Mixseek(
        [team],
        evaluator=EvaluatorSettings(model="test"),
        judgment=JudgmentSettings(model="test"),
        workspace=ws,
    )
    with pytest.raises(InputError, match=r"^--workers: the workers load the config files of "):
        mx.run_sync("task", engine="temporal", workers=2)
    assert not (ws / "temporal").exists()
    assert not (ws / "mixseek.db").exists()


def test_cancelled_while_the_dev_server_starts_stops_all_it_started(tmp_path: Path) -> None:
    """The start goes on in its thread after the cancellation: what it started is stopped all the same."""
    ws = _workspace(tmp_path / "ws")

    async def cancel_mid_start() -> None:
        task = asyncio.create_task(load_workspace(ws).run("task", engine="temporal", workers=2))
        while not (ws / "logs" / "temporal-server.log").exists():  # the server is spawned
            assert not task.done(), task
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_mid_start())
    assert [
        p.cmdline() for p in psutil.Process().children(recursive=True) if str(ws) in " ".join(p.cmdline())
    ] == []
    assert not (ws / "mixseek.db").exists()
