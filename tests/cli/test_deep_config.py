"""A config file nested too deeply: one line naming the file, exit 2, at any depth.

Python's TOML parser gives up a few hundred levels down with a `RecursionError` (arrays and
inline tables), and what reads a parsed file recursed too: 500 levels gave tracebacks. Every
command that reads a config now says the same line at 300 levels as at 100,000.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mixseek.config.loader import read_toml
from mixseek.errors import ConfigError

TOO_DEEP = "nested too deeply (more than 100 levels of tables and arrays)"
DEPTHS = [300, 500, 1_000, 100_000]


def mixseek(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True, timeout=300
    )


def arrays(depth: int) -> str:
    return "deep = " + "[" * depth + "]" * depth + "\n"


def inline_tables(depth: int) -> str:
    return "deep = " + "{ a = " * depth + "1" + " }" * depth + "\n"


def dotted_key(depth: int) -> str:
    return ".".join(["deep"] * depth) + " = 1\n"


def deepen(path: Path, text: str) -> Path:
    """`path` with `text` added at its end (in its last table: nested all the same)."""
    with path.open("a", encoding="utf-8") as f:
        f.write("\n" + text)
    return path.resolve()


def refused(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    return done.stderr.splitlines()


@pytest.mark.parametrize("depth", DEPTHS)
def test_config_validate(workspace: Path, depth: int) -> None:
    file = deepen(workspace / "configs/orchestrator.toml", arrays(depth))
    lines = refused(mixseek("config", "validate", "-w", str(workspace)))
    assert lines == [f"error: {file}: {TOO_DEEP}", "1 problem(s) found"]


@pytest.mark.parametrize("depth", DEPTHS)
def test_config_show(workspace: Path, depth: int) -> None:
    file = deepen(workspace / "configs/judgment.toml", arrays(depth))
    assert refused(mixseek("config", "show", "-w", str(workspace))) == [f"error: {file}: {TOO_DEEP}"]


@pytest.mark.parametrize("depth", DEPTHS)
def test_exec(workspace: Path, depth: int) -> None:
    file = deepen(workspace / "configs/agents/team-analysts.toml", arrays(depth))
    lines = refused(mixseek("exec", "a task", "-w", str(workspace)))
    assert lines == [f"error: {file}: {TOO_DEEP}"]


@pytest.mark.parametrize("depth", DEPTHS)
def test_evaluate(workspace: Path, depth: int) -> None:
    file = deepen(workspace / "configs/evaluator.toml", arrays(depth))
    lines = refused(mixseek("evaluate", "a task", "an answer", "-w", str(workspace)))
    assert lines == [f"error: {file}: {TOO_DEEP}"]


@pytest.mark.parametrize("depth", DEPTHS)
def test_team(workspace: Path, depth: int) -> None:
    file = deepen(workspace / "configs/agents/team-writers.toml", arrays(depth))
    assert refused(mixseek("team", "-c", str(file), "a task")) == [f"error: {file}: {TOO_DEEP}"]


@pytest.mark.parametrize(
    ("shape", "depth"),
    [
        *((inline_tables, depth) for depth in DEPTHS),
        # the parser takes dotted keys without recursing, but in time quadratic in their length:
        # 100,000 parts take it minutes
        *((dotted_key, depth) for depth in DEPTHS[:-1]),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_other_shapes(workspace: Path, shape, depth: int) -> None:
    file = deepen(workspace / "configs/orchestrator.toml", shape(depth))
    lines = refused(mixseek("config", "validate", "-w", str(workspace)))
    assert lines == [f"error: {file}: {TOO_DEEP}", "1 problem(s) found"]


def test_the_limit_is_100_levels(tmp_path: Path) -> None:
    at_limit = tmp_path / "at.toml"
    at_limit.write_text(arrays(100), encoding="utf-8")
    assert read_toml(at_limit) == {"deep": json.loads("[" * 100 + "]" * 100)}
    beyond = tmp_path / "beyond.toml"
    beyond.write_text(arrays(101), encoding="utf-8")
    with pytest.raises(ConfigError) as refusal:
        read_toml(beyond)
    assert str(refusal.value) == f"{beyond}: {TOO_DEEP}"


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_json_schema_file_nested_too_deeply(workspace: Path, depth: int) -> None:
    schema = workspace / "configs/answer.json"
    schema.write_text('{"properties": {"a": ' * depth + "{}" + "}}" * depth, encoding="utf-8")
    evaluator = workspace / "configs/evaluator.toml"
    evaluator.write_text(
        '[evaluator]\n\n[[evaluator.metrics]]\nname = "json_schema"\njson_schema = "answer.json"\n',
        encoding="utf-8",
    )
    lines = refused(mixseek("config", "validate", "-w", str(workspace)))
    assert lines == [
        f"error: {evaluator.resolve()}: evaluator.metrics[0].json_schema: {schema.resolve()}: "
        "nested too deeply (more than 100 levels of objects and arrays)",
        "1 problem(s) found",
    ]
