"""An execution reads each of its config files once (issue 10: "Config files are read once per execution")."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .scripted import World, write_workspace


def test_exec_reads_each_config_file_once(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    (ws / "configs" / "prompt_builder.toml").write_text(
        "[prompt_builder]\nmax_leaderboard_display_teams = 5\n", encoding="utf-8"
    )
    reads: Counter[str] = Counter()
    read_bytes = Path.read_bytes

    def counting(path: Path) -> bytes:
        if path.suffix == ".toml":
            reads[str(path.resolve().relative_to(ws.resolve()))] += 1
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", counting)
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    # the prompt builder's file was read twice (config check + orchestrator), and team files with
    # members again by the start-up checks to name a bad key's file
    assert dict(reads) == {
        "configs/orchestrator.toml": 1,
        "configs/agents/alpha.toml": 1,
        "configs/agents/beta.toml": 1,
        "configs/agents/gamma.toml": 1,
        "configs/evaluator.toml": 1,
        "configs/judgment.toml": 1,
        "configs/prompt_builder.toml": 1,
    }
