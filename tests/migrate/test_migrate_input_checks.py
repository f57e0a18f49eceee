"""What `mixseek migrate` takes from a source that it must not trust: how deep its files nest,
the names of its files, the ids of its executions. Each run is the real CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from datetime import datetime
from pathlib import Path

import pytest

from .legacy import LegacyExecution, LegacyRound, _team, create_database, write, write_init_workspace

RULE = "use lower-case letters, digits and '-' (at most 64, starting and ending with a letter or digit)"
TOO_DEEP = "nested too deeply (more than 100 levels of tables and arrays)"


def migrate(source: Path | bytes, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "migrate", source, "-w", str(dest)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(done: subprocess.CompletedProcess[str], dest: Path) -> list[str]:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert not dest.exists(), "nothing may be written"
    return done.stderr.splitlines()


@pytest.mark.parametrize("depth", [300, 500, 1_000, 100_000])
def test_a_config_nested_too_deeply(tmp_path: Path, depth: int) -> None:
    source = write_init_workspace(tmp_path / "core")
    deep = write(source, "configs/deep.toml", "[team]\nextra = " + "[" * depth + "]" * depth + "\n")
    dest = tmp_path / "new"
    assert refused(migrate(source, dest), dest) == [f"error: {deep.resolve()}: {TOO_DEEP}"]


def _execution(execution_id: str) -> LegacyExecution:
    return LegacyExecution(
        execution_id,
        "Task",
        "completed",
        datetime(2025, 12, 1, 12, 0),
        10.0,
        [LegacyRound("t1", "Team 1", 1, 80.0, "an answer", final=True, exit_reason="max_rounds_reached")],
    )


@pytest.mark.parametrize("execution_id", ["Run_1", "../../etc", "a b", "line\nbreak", "", "x" * 65])
def test_an_execution_id_exec_would_refuse(tmp_path: Path, execution_id: str) -> None:
    source = write_init_workspace(tmp_path / "core")
    db = create_database(source / "mixseek.db", [_execution("run-ok"), _execution(execution_id)])
    dest = tmp_path / "new"
    assert refused(migrate(source, dest), dest) == [
        f"error: {db.resolve()}: execution id {execution_id!r}: {RULE} (nothing was written)"
    ]


def test_a_file_name_with_a_line_break_stays_in_the_comment(tmp_path: Path) -> None:
    source = write_init_workspace(tmp_path / "core")
    name = "team\n[injected]\nowned = true\n# .toml"
    write(source, f"configs/agents/{name}", _team("extra-team", "Extra", "m", "openai:gpt-4o-mini", "t"))
    dest = tmp_path / "new"
    done = migrate(source, dest)
    assert done.returncode == 0, done.stderr
    written = dest / "configs/agents" / name
    text = written.read_text(encoding="utf-8")
    assert text.splitlines()[0] == (
        f"# Converted by `mixseek migrate` from {source.resolve()}/configs/agents/"
        "team\\n[injected]\\nowned = true\\n# .toml"
    )
    assert set(tomllib.loads(text)) == {"team"}
    # the summary names it on one line too
    assert "  wrote configs/agents/team\\n[injected]\\nowned = true\\n# .toml" in done.stdout.splitlines()


def test_a_file_name_that_is_not_utf8_is_left_out(tmp_path: Path) -> None:
    source = write_init_workspace(tmp_path / "core")
    team = _team("extra-team", "Extra", "m", "openai:gpt-4o-mini", "t")
    with open(os.fsencode(source) + b"/configs/agents/caf\xe9.toml", "w", encoding="utf-8") as f:
        f.write(team)
    dest = tmp_path / "new"
    done = migrate(source, dest)
    assert done.returncode == 0, done.stderr
    note = "  configs/agents/caf\\xe9.toml: file name is not UTF-8: not carried over"
    assert note in done.stdout.splitlines()
    assert sorted(p.name for p in (dest / "configs/agents").iterdir()) == [
        "team_academic_researcher.toml",
        "team_general_researcher.toml",
        "team_sns_researcher.toml",
    ]


def test_a_source_reached_through_a_directory_that_is_not_utf8(tmp_path: Path) -> None:
    parent = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(parent)
    write_init_workspace(Path(os.fsdecode(parent)) / "core")
    dest = tmp_path / "new"
    done = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "migrate", "core", "-w", str(dest)],
        capture_output=True,
        text=True,
        cwd=parent,
        timeout=300,
    )
    assert refused(done, dest) == [
        f"error: {tmp_path}/caf\\xe9/core: not UTF-8 text (byte 0xe9 at offset {len(parent) - 1})"
    ]
