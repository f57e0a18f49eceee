"""`mixseek migrate` on a workspace made like mixseek-core's `mixseek init`, with its history."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest
from pydantic_ai.models.test import TestModel
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .legacy import create_database, init_history, write_init_workspace

FIRST = "6f1c2a9e-0000-4000-8000-000000000001"
FAILED = "6f1c2a9e-0000-4000-8000-000000000002"
# the init workspace's models after migration; the provider SDKs (google, xai) are extras
MODELS = {"google-gla:gemini-flash-lite-latest": TestModel(), "xai:grok-4-1-fast": TestModel()}


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = write_init_workspace(tmp_path / "core")
    create_database(root / "mixseek.db", init_history())
    return root


def _migrate(runner: CliRunner, source: Path, dest: Path, *extra: str) -> str:
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_init_workspace_becomes_one_that_validates_and_dry_runs(
    source: Path, tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "new"
    output = _migrate(runner, source, dest)
    assert output.splitlines()[:11] == [
        f"migrated {source} into {dest}",
        "  wrote configs/agents/team_academic_researcher.toml",
        "  wrote configs/agents/team_general_researcher.toml",
        "  wrote configs/agents/team_sns_researcher.toml",
        "  wrote configs/evaluator.toml (from mixseek-core defaults)",
        "  wrote configs/evaluators/evaluator_search_news.toml",
        "  wrote configs/judgment.toml (from mixseek-core defaults)",
        "  wrote configs/judgment/judgment_search_news.toml",
        "  wrote configs/orchestrator.toml (from configs/search_news_multi_perspective.toml)",
        "  wrote configs/search_news.toml",
        f"history: imported 2 execution(s) into {dest / 'mixseek.db'}",
    ]
    assert "to fix before running" not in output

    monkeypatch.setenv("GOOGLE_API_KEY", "test-google-key")
    monkeypatch.setenv("XAI_API_KEY", "test-xai-key")
    with override_models(MODELS):
        validate = runner.invoke(app, ["config", "validate", "-w", str(dest)])
        assert validate.exit_code == 0, validate.output
        for config in ("configs/orchestrator.toml", "configs/search_news.toml"):
            dry = runner.invoke(
                app, ["exec", "today's AI news", "--dry-run", "-w", str(dest), "--config", str(dest / config)]
            )
            assert dry.exit_code == 0, dry.output

    orchestrator = tomllib.loads((dest / "configs/orchestrator.toml").read_text(encoding="utf-8"))[
        "orchestrator"
    ]
    assert orchestrator["teams"] == [
        {"config": "agents/team_general_researcher.toml"},
        {"config": "agents/team_sns_researcher.toml"},
        {"config": "agents/team_academic_researcher.toml"},
    ]
    assert orchestrator["evaluator_config"] == "evaluators/evaluator_search_news.toml"
    assert orchestrator["judgment_config"] == "judgment/judgment_search_news.toml"
    assert (orchestrator["max_rounds"], orchestrator["min_rounds"]) == (3, 1)
    assert (orchestrator["timeout_per_team_seconds"], orchestrator["execution_timeout_seconds"]) == (180, 300)


def test_without_the_provider_sdks_only_their_absence_is_reported(
    source: Path, tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every converted model string is one pydantic-ai knows (mixseek-core's `grok-responses:` is not)."""
    dest = tmp_path / "new"
    _migrate(runner, source, dest)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-google-key")
    monkeypatch.setenv("XAI_API_KEY", "test-xai-key")
    result = runner.invoke(app, ["config", "validate", "-w", str(dest)])
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert all("which is not installed: pip install 'pydantic-ai-slim[" in line for line in errors), errors
    assert result.exit_code == (2 if errors else 0)


def test_past_executions_appear_in_runs_list_and_show(
    source: Path, tmp_path: Path, runner: CliRunner
) -> None:
    dest = tmp_path / "new"
    _migrate(runner, source, dest)
    listing = runner.invoke(app, ["runs", "list", "-w", str(dest), "-f", "json"])
    assert listing.exit_code == 0, listing.output
    entries = {e["execution_id"]: e for e in json.loads(listing.output)}
    assert entries[FIRST] == {
        "execution_id": FIRST,
        "status": "completed",
        "user_prompt": "Summarise this week's AI news",
        "started_at": "2025-11-20T09:28:25+00:00",
        "duration_seconds": 95.0,
        "best_team": "general-researcher-team",
        "best_score": 84.25,
        "rounds_run": 2,
        "total_tokens": 1200 + 300 + 800 + 400 + 1500 + 350 + 900 + 450 + 1000 + 250 + 1100 + 260,
    }
    assert entries[FAILED]["status"] == "failed"
    assert entries[FAILED]["rounds_run"] == 0

    text = runner.invoke(app, ["runs", "list", "-w", str(dest)])
    assert FIRST in text.output and FAILED in text.output

    show = runner.invoke(app, ["runs", "show", FIRST, "-w", str(dest)])
    assert show.exit_code == 0, show.output
    lines = show.output.splitlines()
    assert (
        "team General Research Team (general-researcher-team): stopped, 2 round(s) scored, "
        "best round 2 (84.25), stopped because judgment"
    ) in lines
    assert "    judgment: stop (judgment, confidence 0.80): Scores have levelled off" in lines
    assert "  round 1: 64.00/100 (final)" in lines  # mixseek-core's final flag is kept
    assert "    judgment: stop (max_rounds, confidence 0.90): Final round reached" in lines
    assert (
        "winning submission: General Research Team (general-researcher-team), round 2, score 84.25/100"
        in lines
    )
    assert (
        "  leader of team 'general-researcher-team'                     2         2700          650" in lines
    )
    doc = json.loads(runner.invoke(app, ["runs", "show", FIRST, "-w", str(dest), "-f", "json"]).output)
    general = doc["teams"][0]
    assert general["rounds"][0]["metrics"] == {
        "coverage": {"score": 70.0, "comment": "misses Asia"},
        "relevance": {"score": 73.0, "comment": "on topic"},
    }
    assert general["rounds"][1]["members"] == {"total": 1, "succeeded": 1, "failed": 0}


def test_the_source_is_only_read(source: Path, tmp_path: Path, runner: CliRunner) -> None:
    before = _snapshot(source)
    _migrate(runner, source, tmp_path / "new")
    assert _snapshot(source) == before


def test_existing_configs_are_kept_unless_forced_and_history_is_not_imported_twice(
    source: Path, tmp_path: Path, runner: CliRunner
) -> None:
    dest = tmp_path / "new"
    assert runner.invoke(app, ["init", "-w", str(dest), "--model", "openai:gpt-4o-mini"]).exit_code == 0
    before = _snapshot(dest)

    refused = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == [
        f"error: {dest / 'configs/evaluator.toml'}: already exists (and 2 more); pass --force to overwrite "
        "(nothing was written)"
    ]
    assert _snapshot(dest) == before

    first = _migrate(runner, source, dest, "--force")
    assert f"history: imported 2 execution(s) into {dest / 'mixseek.db'}" in first.splitlines()
    assert "[orchestrator]" in (dest / "configs/orchestrator.toml").read_text(encoding="utf-8")
    again = _migrate(runner, source, dest, "--force")
    assert (
        f"history: imported 0 execution(s) into {dest / 'mixseek.db'}; 2 already there, left as they were"
        in again.splitlines()
    )
    listing = json.loads(runner.invoke(app, ["runs", "list", "-w", str(dest), "-f", "json"]).output)
    assert sorted(e["execution_id"] for e in listing) == [FIRST, FAILED]


def test_orchestrator_option_chooses_the_main_file(source: Path, tmp_path: Path, runner: CliRunner) -> None:
    dest = tmp_path / "new"
    output = _migrate(runner, source, dest, "--orchestrator", "configs/search_news.toml")
    assert "  wrote configs/orchestrator.toml (from configs/search_news.toml)" in output
    assert "  wrote configs/search_news_multi_perspective.toml" in output
    main = tomllib.loads((dest / "configs/orchestrator.toml").read_text(encoding="utf-8"))["orchestrator"]
    assert main["teams"] == [{"config": "agents/team_general_researcher.toml"}]
    assert "evaluator_config" not in main  # configs/evaluator.toml, written with mixseek-core's defaults
    evaluator = tomllib.loads((dest / "configs/evaluator.toml").read_text(encoding="utf-8"))
    assert evaluator == {
        "evaluator": {"model": "google-gla:gemini-flash-lite-latest", "timeout_seconds": 300}
    }
