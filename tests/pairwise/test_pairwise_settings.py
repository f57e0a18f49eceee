"""Bad `[pairwise]` settings (one line naming the file and key, exit 2, nothing run), and the
stage's progress in `exec`'s live view."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pairwise_script import pairwise_workspace
from rich.console import Console
from typer.testing import CliRunner

from e2e.scripted import World
from mixseek.cli.app import app
from mixseek.cli.live_view import LiveView
from mixseek.llm import override_models
from mixseek.orchestrator.events import PairwiseCompared, PairwiseFinished, PairwiseStarted


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('schedule = "elo"', "pairwise.schedule: Input should be 'round_robin', 'top_k' or 'swiss'"),
        ("top_k = 1", "pairwise.top_k: Input should be greater than or equal to 2"),
        ("max_comparisons = 0", "pairwise.max_comparisons: Input should be greater than or equal to 1"),
        ("bootstrap_samples = -1", "pairwise.bootstrap_samples: Input should be greater than or equal to 0"),
        ('system_instruction = " "', "pairwise.system_instruction: system_instruction cannot be empty"),
        ("colour = 1", "pairwise.colour: unknown key"),
    ],
)
def test_bad_setting_is_one_line_and_exit_2(
    tmp_path: Path, runner: CliRunner, setting: str, message: str
) -> None:
    ws = pairwise_workspace(tmp_path / "ws", setting)
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {ws}/configs/pairwise.toml: {message}\n"
    assert not (ws / "mixseek.db").exists()
    validated = runner.invoke(app, ["config", "validate", "-w", str(ws)])
    assert validated.exit_code == 2
    assert validated.stderr.splitlines()[0] == f"error: {ws}/configs/pairwise.toml: {message}"


def test_unknown_judge_model_is_named_with_its_key(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", "")
    path = ws / "configs" / "pairwise.toml"
    path.write_text(path.read_text().replace("script:pairwise", "nosuch:judge"), encoding="utf-8")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {path}: pairwise.model: model 'nosuch:judge' for pairwise judge has an unknown provider"
    )
    assert len(result.stderr.splitlines()) == 1


def test_disabled_stage_checks_nothing_and_adds_nothing(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", "enabled = false")
    path = ws / "configs" / "pairwise.toml"
    path.write_text(path.read_text().replace("script:pairwise", "nosuch:judge"), encoding="utf-8")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.stderr
    assert '"pairwise": null' in result.stdout


def test_live_view_footer_follows_the_stage() -> None:
    console = Console(file=io.StringIO(), width=120, force_terminal=False, color_system=None)
    with LiveView(console, max_rounds=1) as view:
        view(PairwiseStarted(execution_id="e1", schedule="swiss", teams=["a", "b", "c"], planned=2))
        assert view.footer == "pairwise ranking (swiss): 0/2 comparisons"
        view(PairwiseCompared(execution_id="e1", team_a="a", team_b="b", outcome=0.5, done=1, planned=2))
        assert view.footer == "pairwise ranking: 1/2 comparisons (last: a vs b, tie)"
        view(PairwiseFinished(execution_id="e1", status="budget", comparisons=1, leader="a"))
        assert view.footer == "pairwise ranking budget: 1 comparisons, first: a"
