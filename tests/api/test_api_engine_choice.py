"""The engine keywords of `Mixseek.run`, checked as `mixseek exec` checks its options, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest

from mixseek import EvaluatorSettings, InputError, JudgmentSettings, LeaderAgentConfig, Mixseek, TeamConfig


def _mixseek(workspace: Path) -> Mixseek:
    team = TeamConfig(team_id="solo", team_name="Solo", leader=LeaderAgentConfig(model="test"))
    return Mixseek(
        [team],
        evaluator=EvaluatorSettings(model="test"),
        judgment=JudgmentSettings(model="test"),
        workspace=workspace,
    )


def test_a_bad_engine_choice_is_an_input_error_and_nothing_runs(tmp_path: Path) -> None:
    mx = _mixseek(tmp_path / "ws")
    with pytest.raises(InputError, match=r"^--engine: 'mars': must be local or temporal$"):
        mx.run_sync("task", engine="mars")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^--workers: only with --engine temporal$"):
        mx.run_sync("task", workers=2)
    with pytest.raises(InputError, match=r"^--governor-listen: only with --engine temporal$"):
        mx.run_sync("task", engine="local", governor_listen="127.0.0.1:7300")
    # a mistyped keyword is not taken for an engine option and dropped
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'worker'"):
        mx.run_sync("task", worker=2)  # type: ignore[call-arg]
    assert not (tmp_path / "ws" / "mixseek.db").exists()


def test_engine_local_runs_in_this_process(tmp_path: Path) -> None:
    summary = _mixseek(tmp_path / "ws").run_sync("task", engine="local")
    assert summary.status == "completed"
    assert not (tmp_path / "ws" / "temporal").exists()
