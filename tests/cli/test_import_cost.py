"""The quick commands load only what they need: `mixseek --help`, `runs list` and `config validate`
never import pydantic-ai (loading it takes about a second), and `--help` loads neither the config
models nor the store nor asyncio; importing the CLI loads none of the libraries a command may not
need, nor any command's module: a command's module loads when that command runs (`--help` loads
them all, to list them). `runs list|show` read the store once without an event loop: none of the
store's write path (`AggregationStore`, asyncio), nor tenacity (loaded only once a lock is met) nor
psutil (loaded only to ask whether a running execution's process is alive); `runs list` loads
none of what showing one execution needs (its whole read model, the layouts, the statistics), and
`config validate` of a config without code-exec members none of the sandbox checks (nor asyncio).

Each check runs the real CLI in a fresh interpreter and reads `sys.modules` as it exits: what was
imported, not how long it took (bench/cli_startup.py times them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

HEAVY = (
    "pydantic_ai",
    "pydantic",
    "pydantic_settings",
    "duckdb",
    "jinja2",
    "opentelemetry",
    "llama_cpp",
    "rich",
    "asyncio",
    "tenacity",
    "psutil",
    "mixseek.storage.aggregation_store",
)

COMMAND_MODULES = (
    "mixseek.cli.init_cmd",
    "mixseek.cli.exec_cmd",
    "mixseek.cli.bench_cmd",
    "mixseek.cli.team_cmd",
    "mixseek.cli.evaluate_cmd",
    "mixseek.cli.ui_cmd",
    "mixseek.cli.worker_cmd",
    "mixseek.cli.doctor_cmd",
    "mixseek.cli.migrate_cmd",
    "mixseek.cli.config_cmd",
    "mixseek.cli.runs_cmd",
    "mixseek.cli.judges_cmd",
)
"""The modules of `mixseek`'s commands and groups."""

SHOWING_ONE_EXECUTION = (
    "mixseek.storage.read_model",
    "mixseek.storage.views",
    "mixseek.storage.pairwise_views",
    "mixseek.storage.agreement",
    "mixseek.cli.runs_text",
    "mixseek.cli.runs_export",
    "mixseek.report",
    "mixseek.stats.bradley_terry",
    "mixseek.stats.calibration",
)
"""What `runs show|export` need and `runs list` does not."""

# runs the `mixseek` command in this interpreter; at exit, prints the names of the modules loaded
PROBE = """
import atexit, json, sys
atexit.register(lambda: print("@@loaded", json.dumps(sorted(sys.modules))))
sys.argv[0] = "mixseek"
from mixseek.cli.entry import main
main()
"""


def loaded_by(
    *args: str, env: dict[str, str] | None = None, watched: tuple[str, ...] = HEAVY
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run `mixseek ARGS` in a new process (with `env` added to a copy of this one's environment,
    less its MIXSEEK_ variables): its result, and the modules of `watched` it imported."""
    env = {**{k: v for k, v in os.environ.items() if not k.upper().startswith("MIXSEEK_")}, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=300
    )
    marks = [line for line in proc.stdout.splitlines() if line.startswith("@@loaded ")]
    assert len(marks) == 1, proc.stdout + proc.stderr
    loaded = set(json.loads(marks[0].removeprefix("@@loaded ")))
    return proc, [m for m in watched if m in loaded]


def test_importing_the_cli_loads_no_library_a_command_may_not_need() -> None:
    watched = (*HEAVY, *COMMAND_MODULES)
    code = f"import sys, mixseek.cli.app; print([m for m in {watched!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == "[]"


def test_help_lists_every_command_in_its_order() -> None:
    proc, loaded = loaded_by("--help", env={"COLUMNS": "100"}, watched=COMMAND_MODULES)
    assert proc.returncode == 0, proc.stderr
    box = proc.stdout.split("Commands")[1]
    listed = [line.split()[1] for line in box.splitlines() if line.startswith("│ ") and line[2:3].isalpha()]
    assert listed == [
        "init",
        "exec",
        "bench",
        "team",
        "member",
        "evaluate",
        "ui",
        "worker",
        "doctor",
        "migrate",
        "config",
        "runs",
        "judges",
    ]
    assert loaded == list(COMMAND_MODULES)  # each command's help comes from its module


@pytest.mark.parametrize("args", [["--help"], ["exec", "--help"], ["runs", "--help"], ["config", "--help"]])
def test_help_loads_neither_pydantic_ai_nor_config_models_nor_the_store(args: list[str]) -> None:
    proc, loaded = loaded_by(*args)
    assert proc.returncode == 0, proc.stderr
    assert "Usage: mixseek" in proc.stdout
    # Typer's own: it checks a command's parameters with pydantic and lays out help with rich
    assert [m for m in loaded if m not in ("pydantic", "rich")] == []  # no asyncio either


def test_config_validate_of_a_sample_workspace_loads_no_pydantic_ai(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", "test"]).exit_code == 0
    proc, loaded = loaded_by("config", "validate", "-w", str(ws))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith(f"OK: {ws} — 2 team(s): analysts, writers\n")
    assert "pydantic_ai" not in loaded
    assert "duckdb" not in loaded  # nothing of the store either
    assert "rich" not in loaded  # its lines are plain
    # pydantic-settings loads only to read a variable that is set (MIXSEEK_ ones are cleared here)
    assert "pydantic_settings" not in loaded
    assert "asyncio" not in loaded  # nor the code-exec sandbox checks: the sample has no such member
    _, modules = loaded_by(
        "config",
        "validate",
        "-w",
        str(ws),
        watched=(*COMMAND_MODULES, "mixseek.agents.member.code_exec_checks"),
    )
    assert modules == ["mixseek.cli.config_cmd"]


def test_config_validate_loads_pydantic_settings_to_read_a_variable_that_is_set(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", "test"]).exit_code == 0
    proc, loaded = loaded_by(
        "config", "validate", "-w", str(ws), env={"MIXSEEK_ORCHESTRATOR__MAX_ROUNDS": "7"}
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "pydantic_settings" in loaded
    # and the value is read: a bad one is reported
    proc, _ = loaded_by("config", "validate", "-w", str(ws), env={"mixseek_orchestrator__max_rounds": "0"})
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: env MIXSEEK_ORCHESTRATOR__MAX_ROUNDS: ")


def test_runs_list_and_show_load_neither_pydantic_ai_nor_the_write_path(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "課題", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    execution_id = json.loads(result.stdout)["execution_id"]
    for output_format in ("text", "json"):
        for args in (["runs", "list"], ["runs", "show", execution_id]):
            proc, loaded = loaded_by(*args, "-w", str(ws), "-f", output_format)
            assert proc.returncode == 0, proc.stderr
            assert execution_id in proc.stdout
            assert "pydantic_ai" not in loaded
            for module in ("mixseek.storage.aggregation_store", "asyncio", "tenacity", "psutil"):
                assert module not in loaded, (args, output_format)
        # of the CLI, only the `runs` group's module; of the store, only what a listing reads
        _, modules = loaded_by(
            "runs",
            "list",
            "-w",
            str(ws),
            "-f",
            output_format,
            watched=(*COMMAND_MODULES, *SHOWING_ONE_EXECUTION),
        )
        assert modules == ["mixseek.cli.runs_cmd"], output_format


ENGINE = (
    "pydantic_ai",
    "duckdb",
    "jinja2",
    "asyncio",
    "mixseek.api",
    "mixseek.config.bundle",
    "mixseek.orchestrator.orchestrator",
    "mixseek.storage.aggregation_store",
)
"""What `mixseek exec` runs an execution with: a second of imports."""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["exec", "hi"],
            "error: --workspace: no workspace given: pass --workspace/-w DIR or set MIXSEEK_WORKSPACE",
        ),
        (
            ["exec"],
            "error: PROMPT: give the task as an argument or with --prompt-file (or --resume EXECUTION_ID)",
        ),
        (
            ["exec", "hi", "--resume", "x", "-w", "."],
            "error: PROMPT: not allowed with --resume (the execution keeps its prompt)",
        ),
        (
            ["exec", "hi", "-f", "yaml", "-w", "."],
            "error: --output-format: must be 'text' or 'json' (got 'yaml')",
        ),
        (
            ["exec", "hi", "--execution-id", "Bad Id", "-w", "."],
            "error: --execution-id: 'Bad Id': use lower-case letters, digits and '-' (at most 64, "
            "starting and ending with a letter or digit)",
        ),
    ],
)
def test_exec_refuses_bad_arguments_before_loading_the_engine(args: list[str], message: str) -> None:
    """A mistyped `exec` is told at once: the arguments are checked before pydantic-ai, DuckDB and
    the orchestrator load (a second and a half, for one line)."""
    proc, loaded = loaded_by(*args, watched=ENGINE)
    assert (proc.returncode, proc.stderr.splitlines()) == (2, [message])
    assert loaded == []
