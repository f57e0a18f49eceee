"""`mixseek.runs`, the public read API: listing and reading a workspace's stored executions, its
filters and its errors, that it never creates nor upgrades a store, that `mixseek runs` and the
dashboard read through it, and the README's example of it run as it is in a fresh interpreter."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import mixseek
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.errors import InputError, MixseekError
from mixseek.llm import override_models
from mixseek.orchestrator.models import ExecutionSummary
from mixseek.runs import UnknownExecution, list_executions, read_execution
from mixseek.storage.views import ExecutionOutcome
from ui.runs_world import RunsWorld, build_runs_world

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> RunsWorld:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        return build_runs_world(tmp_path_factory.mktemp("runs") / "ws")


def _cli_json(*args: str) -> object:
    result = CliRunner().invoke(app, [*args, "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_read_model_is_exported_from_mixseek(world: RunsWorld) -> None:
    listed = list_executions(world.root)
    view = read_execution(str(world.root), world.first)
    assert all(isinstance(entry, mixseek.ExecutionOverview) for entry in listed)
    assert isinstance(view, mixseek.ExecutionView)
    assert isinstance(view.teams[0], mixseek.TeamView)
    assert isinstance(view.teams[0].rounds[0], mixseek.RoundView)
    assert issubclass(mixseek.UnknownExecution, mixseek.InputError)
    assert {"ExecutionOverview", "ExecutionView", "TeamView", "RoundView", "UnknownExecution"} <= set(
        mixseek.__all__
    )


def test_list_executions_is_the_listing_of_runs_list_newest_first(world: RunsWorld) -> None:
    listed = list_executions(world.root)
    assert [e.execution_id for e in listed] == world.newest_first
    assert [e.model_dump(mode="json") for e in listed] == _cli_json("runs", "list", "-w", str(world.root))
    assert [e.status for e in listed] == ["failed", "interrupted", "completed", "completed"]
    assert [e.best_score for e in listed] == [None, 88.5, 70.0, 99.0]


def test_list_executions_filters_by_status_before_the_limit(world: RunsWorld) -> None:
    assert [e.execution_id for e in list_executions(world.root, limit=2)] == world.newest_first[:2]
    completed = list_executions(world.root, status="completed")
    assert [e.execution_id for e in completed] == [world.second, world.first]
    # the two newest are not completed: the limit counts the executions of that status
    assert [e.execution_id for e in list_executions(world.root, status="completed", limit=1)] == [
        world.second
    ]
    assert [e.execution_id for e in list_executions(world.root, status="interrupted")] == [world.interrupted]
    assert list_executions(world.root, status="running") == []


def test_read_execution_is_the_document_of_runs_show_and_export(world: RunsWorld) -> None:
    view = read_execution(world.root, world.first)
    shown = _cli_json("runs", "show", world.first, "-w", str(world.root))
    assert view.document(details=False) == shown
    exported = CliRunner().invoke(
        app, ["runs", "export", world.first, "--format", "json", "-w", str(world.root)]
    )
    assert view.document() == json.loads(exported.stdout)
    assert (view.status, view.best.team_id if view.best else None) == ("completed", "gamma")
    assert [r.score for r in next(t for t in view.teams if t.team_id == "gamma").rounds] == [
        50.0,
        75.0,
        78.0,
        99.0,
    ]


def test_reading_changes_no_byte_of_the_store(world: RunsWorld) -> None:
    db = world.root / "mixseek.db"
    before = _digest(db)
    list_executions(world.root, status="failed")
    read_execution(world.root, world.interrupted)
    with pytest.raises(UnknownExecution):
        read_execution(world.root, "nope")
    assert _digest(db) == before
    assert sorted(p.name for p in world.root.iterdir()) == ["configs", "logs", "mixseek.db"]


def test_an_unknown_execution_is_one_clear_error(world: RunsWorld) -> None:
    with pytest.raises(UnknownExecution) as caught:
        read_execution(world.root, "no-such-run")
    assert str(caught.value) == f"no execution 'no-such-run' in {world.root / 'mixseek.db'}"


def test_a_workspace_without_a_store_is_an_error_and_gets_none(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with pytest.raises(InputError) as caught:
        list_executions(ws)
    assert (
        str(caught.value)
        == f"{ws / 'mixseek.db'}: no such store file (no execution has run in this workspace)"
    )
    with pytest.raises(UnknownExecution) as unknown:
        read_execution(ws, "run-1")
    assert str(unknown.value) == f"no execution 'run-1' in {ws / 'mixseek.db'}"
    assert list(ws.iterdir()) == []  # no store file was created


def test_a_missing_workspace_and_bad_arguments_are_input_errors(tmp_path: Path, world: RunsWorld) -> None:
    missing = tmp_path / "nowhere"
    for call in (lambda: list_executions(missing), lambda: read_execution(missing, "x")):
        with pytest.raises(InputError) as caught:
            call()
        assert str(caught.value) == f"workspace: {missing} is not a directory (run 'mixseek init')"
    assert not missing.exists()
    with pytest.raises(InputError) as caught:
        list_executions(world.root, status="done")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "status: must be one of running, completed, partial_failure, failed, interrupted (got 'done')"
    )
    with pytest.raises(InputError) as caught:
        list_executions(world.root, limit=0)
    assert str(caught.value) == "limit: must be at least 1 (got 0)"


def test_a_store_of_an_older_schema_is_refused_not_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "mixseek.db"
    duckdb.connect(str(db)).close()  # a DuckDB file without mixseek's tables: schema version 0
    before = _digest(db)
    for call in (lambda: list_executions(tmp_path), lambda: read_execution(tmp_path, "x")):
        with pytest.raises(MixseekError) as caught:
            call()
        assert str(caught.value).startswith(
            f"{db}: database schema version 0 is older than this mixseek needs"
        )
    assert _digest(db) == before


def test_execution_summary_and_view_share_one_base_and_keep_their_json() -> None:
    """`ExecutionSummary` (what `exec` prints) derives from the read model's base as `ExecutionView`
    does; each keeps the keys, and the order, its JSON always had."""
    assert issubclass(ExecutionSummary, ExecutionOutcome)
    assert issubclass(mixseek.ExecutionView, ExecutionOutcome)
    shared = set(ExecutionOutcome.model_fields)
    assert {"execution_id", "user_prompt", "status", "stop_reason", "best", "leaderboard", "usage"} <= shared
    summary = ExecutionSummary(execution_id="x", user_prompt="p", status="completed", stop_reason="finished")
    assert " ".join(summary.model_dump(mode="json")) == (
        "execution_id user_prompt status stop_reason stop_detail best leaderboard teams rounds_run usage "
        "usage_by_site cost_usd duration_seconds degraded_reasons pairwise demo_model degraded"
    )
    view = mixseek.ExecutionView.model_validate(
        {"execution_id": "x", "user_prompt": "p", "status": "running", "started_at": "2026-01-01T00:00:00Z"}
        | {"ended_at": None, "teams": [], "usage_by_model": {}}
    )
    assert " ".join(view.document(details=False)) == (
        "execution_id user_prompt status stop_reason stop_detail degraded_reasons started_at ended_at "
        "duration_seconds rounds_run leaderboard teams best usage usage_by_site usage_by_model agreement "
        "pairwise demo_model"
    )


READ_THROUGH_THE_API = ("mixseek.storage.read_model", "mixseek.storage.listing", "mixseek.storage.quick_read")
"""The modules that `mixseek.runs` reads with: the front ends go through it instead."""


@pytest.mark.parametrize(
    "module",
    [
        "cli/runs_cmd.py",
        "cli/runs_text.py",
        "ui/reads.py",
        *sorted(
            str(p.relative_to(ROOT / "src" / "mixseek")) for p in (ROOT / "src/mixseek/ui").glob("pages_*.py")
        ),
    ],
)
def test_the_front_ends_read_stored_executions_through_mixseek_runs(module: str) -> None:
    tree = ast.parse((ROOT / "src" / "mixseek" / module).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & set(READ_THROUGH_THE_API), module


# -- the README's example --------------------------------------------------------------

README_IDS = ("20260511-090000-5e1d2c3b", "20260511-091500-a41f07c9")
"""The ids of the executions the README's example lists: run here with these ids."""


def _readme_example() -> tuple[str, list[str]]:
    """The README's Python block that uses `mixseek.runs`, and the output shown after it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Python API\n") :]
    section = section[: section.find("\n## ", 1)]
    blocks = re.finditer(r"^```python\n(.*?)^```\n", section, re.S | re.M)
    code = next((b for b in blocks if "mixseek.runs" in b[1]), None)
    assert code is not None, "no example of mixseek.runs in the README's Python API section"
    output = re.match(r"\n*```\n(.*?)^```$", section[code.end() :], re.S | re.M)
    assert output is not None, "the example of mixseek.runs shows no output"
    return code[1], output[1].splitlines()


def test_the_readme_example_reads_a_workspace_as_it_is(tmp_path: Path) -> None:
    code, output = _readme_example()
    ws = write_workspace(tmp_path / "workspace", max_rounds=3)
    prompts = ("Propose three ways to cut a household's energy use.", "Write a haiku about autumn.")
    for execution_id, prompt in zip(README_IDS, prompts, strict=True):
        with override_models(World().models()):
            result = CliRunner().invoke(app, ["exec", prompt, "-w", str(ws), "--execution-id", execution_id])
        assert result.exit_code == 0, result.output
    before = _digest(ws / "mixseek.db")
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIXSEEK_", "PYTHON"))}
    proc = subprocess.run(
        [sys.executable, "-I", "example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == output
    assert _digest(ws / "mixseek.db") == before
