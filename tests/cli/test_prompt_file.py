"""`--prompt-file` (and `--submission-file`): prompts too long for a command line, from a file or stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

RUN_CHECKED = Path(__file__).parent / "run_prompt_checked.py"

TEAM = """
[team]
team_id = "alpha"
team_name = "Alpha"
[team.leader]
model = "script:leader-alpha"
[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "script:member"
"""
MEMBER = """
[member]
agent_name = "helper"
agent_type = "plain"
tool_description = "x"
model = "script:member"
"""


def megabyte_prompt() -> str:
    """A little over 1 MiB of UTF-8: far beyond the 128 KiB Linux allows one argument."""
    line = "少子化対策を三つ比較し、それぞれの根拠と費用を示してください。 compare, cite, cost\n"
    count = (1 << 20) // len(line.encode()) + 1
    return "".join(f"{i:05d} {line}" for i in range(count))


def run_checked(ws: Path, prompt_file: Path, *args: str, stdin: bytes | None = None) -> dict[str, object]:
    env = {**os.environ, "EXPECT_PROMPT_FILE": str(prompt_file)}
    env.pop("MIXSEEK_WORKSPACE", None)
    proc = subprocess.run(
        [sys.executable, str(RUN_CHECKED), "exec", *args, "-w", str(ws), "-f", "json"],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    summary: dict[str, object] = json.loads(proc.stdout)
    return summary


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_exec_takes_a_megabyte_prompt_from_a_file_or_stdin(tmp_path: Path, via: str) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    prompt = megabyte_prompt()
    assert len(prompt.encode()) > 1 << 20
    prompt_file = tmp_path / "prompt.txt"
    prompt_file.write_text(prompt, encoding="utf-8")
    if via == "file":
        summary = run_checked(ws, prompt_file, "--prompt-file", str(prompt_file))
    else:
        summary = run_checked(ws, prompt_file, "--prompt-file", "-", stdin=prompt.encode())
    # every leader, metric and judgment call checked that it was sent the whole prompt
    assert summary["status"] == "completed"
    assert [t["rounds_completed"] for t in summary["teams"]] == [2, 2, 2]  # type: ignore[attr-defined]
    assert rows(ws / "mixseek.db", "SELECT user_prompt FROM executions") == [(prompt,)]


def test_team_and_member_read_the_prompt_from_a_file_and_stdin(tmp_path: Path, runner: CliRunner) -> None:
    team = tmp_path / "team.toml"
    team.write_text(TEAM, encoding="utf-8")
    member = tmp_path / "member.toml"
    member.write_text(MEMBER, encoding="utf-8")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("\ufeffファイルの課題\n二行目", encoding="utf-8")  # a byte-order mark is dropped
    world = World()
    with override_models(world.models()):
        team_run = runner.invoke(app, ["team", "-c", str(team), "--prompt-file", str(prompt), "-f", "json"])
        member_run = runner.invoke(
            app, ["member", "-c", str(member), "--prompt-file", "-", "-f", "json"], input="標準入力の課題"
        )
    assert team_run.exit_code == 0, team_run.output
    assert world.team_prompts[("alpha", 1)] == "ファイルの課題\n二行目"
    assert member_run.exit_code == 0, member_run.output
    assert json.loads(member_run.stdout)["content"] == "member did 標準入力の課題"


def test_evaluate_reads_prompt_and_submission_files(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("評価の課題", encoding="utf-8")
    submission = tmp_path / "submission.txt"
    submission.write_text("gamma answer v4", encoding="utf-8")
    base = ["evaluate", "-w", str(ws), "-f", "json"]
    with override_models(World().models()):
        both = runner.invoke(app, [*base, "--prompt-file", str(prompt), "--submission-file", str(submission)])
        # with --prompt-file, the one argument is the submission
        one = runner.invoke(app, [*base, "--prompt-file", str(prompt), "beta answer v3"])
        piped = runner.invoke(app, [*base, "課題", "--submission-file", "-"], input="alpha answer v2")
    assert [json.loads(r.stdout)["overall_score"] for r in (both, one, piped)] == [99.0, 90.0, 75.0]


def _error(runner: CliRunner, args: list[str], stdin: str | bytes | None = None) -> str:
    result = runner.invoke(app, args, input=stdin)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_prompt_and_prompt_file_together_is_one_line_exit_2(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    prompt = tmp_path / "p.txt"
    prompt.write_text("課題", encoding="utf-8")
    both = "error: PROMPT: give it as an argument or with --prompt-file, not both"
    assert _error(runner, ["exec", "課題", "--prompt-file", str(prompt), "-w", str(ws)]) == both
    assert _error(runner, ["team", "課題", "--prompt-file", str(prompt), "-c", str(prompt)]) == both
    assert _error(runner, ["member", "課題", "--prompt-file", str(prompt), "-c", str(prompt)]) == both
    assert _error(runner, ["evaluate", "a", "b", "--prompt-file", str(prompt), "-w", str(ws)]) == both
    assert _error(runner, ["evaluate", "a", "b", "--submission-file", str(prompt), "-w", str(ws)]) == (
        "error: SUBMISSION: give it as an argument or with --submission-file, not both"
    )


def test_an_empty_prompt_file_is_an_empty_prompt(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n", encoding="utf-8")
    assert (
        _error(runner, ["exec", "--prompt-file", str(empty), "-w", str(ws)])
        == _error(runner, ["exec", " ", "-w", str(ws)])
        == "error: PROMPT: give the task as an argument or with --prompt-file (or --resume EXECUTION_ID)"
    )
    team = tmp_path / "team.toml"
    team.write_text(TEAM, encoding="utf-8")
    assert (
        _error(runner, ["team", "-c", str(team), "--prompt-file", "-"], stdin="")
        == _error(runner, ["team", "", "-c", str(team)])
        == "error: PROMPT: must not be empty (give it as an argument or with --prompt-file)"
    )
    assert _error(runner, ["evaluate", "課題", "--submission-file", str(empty), "-w", str(ws)]) == (
        "error: SUBMISSION: must not be empty (give it as an argument or with --submission-file)"
    )


def test_unreadable_prompt_files_are_one_line_naming_the_file(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\u00e9 au lait".encode("latin-1"))
    missing = tmp_path / "missing.txt"
    assert _error(runner, ["exec", "--prompt-file", str(latin1), "-w", str(ws)]) == (
        f"error: --prompt-file: {latin1}: not UTF-8 text (byte 0xe9 at offset 3)"
    )
    assert _error(runner, ["member", "-c", str(latin1), "--prompt-file", str(missing)]) == (
        f"error: --prompt-file: {missing}: file not found"
    )
    assert _error(runner, ["team", "-c", str(latin1), "--prompt-file", str(tmp_path)]) == (
        f"error: --prompt-file: {tmp_path}: is a directory, not a file"
    )
    assert _error(runner, ["evaluate", "p", "--submission-file", "-", "-w", str(ws)], stdin=b"ok \xff") == (
        "error: --submission-file: standard input: not UTF-8 text (byte 0xff at offset 3)"
    )
