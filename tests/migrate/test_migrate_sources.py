"""Sources `mixseek migrate` refuses (one line, exit 2, nothing written) and less common ones it takes."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from datetime import datetime
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app

from .legacy import (
    LegacyExecution,
    LegacyRound,
    create_database,
    create_early_database,
    write,
    write_init_workspace,
)


def _refused(runner: CliRunner, source: Path, dest: Path) -> str:
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert not dest.exists() or not any(dest.rglob("*")), "nothing may be written"
    return lines[0]


def test_absent_source(tmp_path: Path, runner: CliRunner) -> None:
    missing = tmp_path / "nowhere"
    line = _refused(runner, missing, tmp_path / "new")
    assert line == f"error: {missing}: no such directory (give the mixseek-core workspace to migrate)"


def test_a_directory_that_is_no_workspace(tmp_path: Path, runner: CliRunner) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _refused(runner, empty, tmp_path / "new")
    assert line == f"error: {empty}: not a mixseek-core workspace (it has neither configs/ nor mixseek.db)"


def test_a_malformed_config_file(tmp_path: Path, runner: CliRunner) -> None:
    source = write_init_workspace(tmp_path / "core")
    bad = write(source, "configs/agents/team_sns_researcher.toml", "[team\nteam_id = 'x'\n")
    line = _refused(runner, source, tmp_path / "new")
    assert line.startswith(f"error: {bad}: TOML syntax error: ")


def test_a_damaged_database(tmp_path: Path, runner: CliRunner) -> None:
    source = write_init_workspace(tmp_path / "core")
    (source / "mixseek.db").write_bytes(b"this is not a database" * 1000)
    line = _refused(runner, source, tmp_path / "new")
    assert line.startswith(f"error: {source / 'mixseek.db'}: ")
    assert "database" in line


def test_the_source_itself_as_destination(tmp_path: Path, runner: CliRunner) -> None:
    source = write_init_workspace(tmp_path / "core")
    result = runner.invoke(app, ["migrate", str(source), "-w", str(source)])
    assert result.exit_code == 2
    assert (
        result.output.strip()
        == f"error: {source}: the new workspace must be another directory than the source"
    )


def test_an_early_release_database_with_scores_from_0_to_1(tmp_path: Path, runner: CliRunner) -> None:
    source = tmp_path / "core"
    source.mkdir()
    create_early_database(source / "mixseek.db")
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    assert "  mixseek.db: leader_board.evaluation_score: scores were on a 0–1 scale: imported as 0–100" in (
        result.output.splitlines()
    )
    doc = json.loads(runner.invoke(app, ["runs", "show", "early-1", "-w", str(dest), "-f", "json"]).output)
    assert doc["status"] == "completed"
    assert doc["leaderboard"] == [
        {"team_id": "team-001", "team_name": "Alpha Team", "max_score": 85.0, "total_rounds": 1}
    ]
    assert doc["teams"][0]["rounds"][0]["feedback"] == "Relevance (0.90): on topic"
    assert doc["usage"] == {"requests": 3, "input_tokens": 450, "output_tokens": 900}
    assert doc["duration_seconds"] == 5.2


def test_unfinished_runs_are_reported_and_scores_off_0_to_100_kept(tmp_path: Path, runner: CliRunner) -> None:
    source = tmp_path / "core"
    source.mkdir()
    finished = LegacyExecution(
        "run-done",
        "Task",
        "completed",
        datetime(2025, 12, 1, 12, 0),
        10.0,
        [
            LegacyRound(
                "t1",
                "Team 1",
                1,
                130.0,
                "custom metrics scored high",
                final=True,
                exit_reason="max_rounds_reached",
            )
        ],
    )
    create_database(source / "mixseek.db", [finished])
    with_unfinished = create_database(source / "mixseek.db", [])
    conn = duckdb.connect(str(with_unfinished))
    conn.execute(
        "INSERT INTO leader_board (execution_id, team_id, team_name, round_number, submission_content, "
        "score, score_details) VALUES ('run-cut', 't1', 'Team 1', 1, 'half', 50.0, '{}')"
    )
    conn.close()
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # mixseek-core scores on any scale: kept as they were, the execution's scale said
    assert "  mixseek.db: execution run-done: scores outside 0–100 kept: its scale is unbounded" in lines
    assert (
        "  mixseek.db: execution run-cut: no execution_summary row (the run did not finish): not imported"
        in lines
    )
    listing = json.loads(runner.invoke(app, ["runs", "list", "-w", str(dest), "-f", "json"]).output)
    assert [(e["execution_id"], e["best_score"]) for e in listing] == [("run-done", 130.0)]
    shown = json.loads(runner.invoke(app, ["runs", "show", "run-done", "-w", str(dest), "-f", "json"]).output)
    assert (shown["scale"], shown["best"]["score"]) == ("unbounded", 130.0)


def test_custom_member_plugin_becomes_class_path(tmp_path: Path, runner: CliRunner) -> None:
    source = tmp_path / "core"
    write(
        source,
        "configs/agents/simple_agent.toml",
        '[agent]\nname = "simple-custom"\ntype = "custom"\nmodel = "openai:gpt-4o"\n'
        'tool_description = "A custom agent"\n\n[agent.plugin]\npath = "/opt/agents/simple_agent.py"\n'
        'agent_class = "SimpleCustomAgent"\n',
    )
    write(
        source,
        "configs/team.toml",
        '[team]\nteam_id = "t"\nteam_name = "T"\n\n[[team.members]]\n'
        'config = "configs/agents/simple_agent.toml"\n',
    )
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    member = tomllib.loads((dest / "configs/agents/simple_agent.toml").read_text(encoding="utf-8"))["member"]
    assert (member["agent_type"], member["class_path"]) == (
        "custom",
        "/opt/agents/simple_agent.py:SimpleCustomAgent",
    )
    lines = result.output.splitlines()
    assert (
        "  configs/agents/simple_agent.toml: agent.plugin: class_path = '/opt/agents/simple_agent.py:"
        "SimpleCustomAgent': the class must now subclass mixseek.agents.member.base.MemberAgent (a relative "
        "path resolves against the team file)"
    ) in lines
    # without an orchestrator file, one that runs every team file is written
    assert (
        "  configs/orchestrator.toml: written to run every team file (the source has no orchestrator file)"
        in lines
    )
    orchestrator = tomllib.loads((dest / "configs/orchestrator.toml").read_text(encoding="utf-8"))[
        "orchestrator"
    ]
    assert orchestrator["teams"] == [{"config": "team.toml"}]
    # the class itself is not there: `config validate` says so
    validate = runner.invoke(app, ["config", "validate", "-w", str(dest)])
    assert validate.exit_code == 2
    assert f"error: {dest / 'configs/agents/simple_agent.toml'}: member.class_path: " in validate.output


@pytest.mark.parametrize("missing", ["team", "member"])
def test_references_to_missing_files_are_reported(tmp_path: Path, runner: CliRunner, missing: str) -> None:
    source = tmp_path / "core"
    write(
        source,
        "configs/orchestrator.toml",
        '[orchestrator]\n[[orchestrator.teams]]\nconfig = "configs/a.toml"\n'
        '[[orchestrator.teams]]\nconfig = "configs/gone.toml"\n'
        if missing == "team"
        else '[orchestrator]\n[[orchestrator.teams]]\nconfig = "configs/a.toml"\n',
    )
    member_ref = '\n[[team.members]]\nconfig = "configs/agents/gone.toml"\n' if missing == "member" else ""
    write(source, "configs/a.toml", f'[team]\nteam_id = "a"\nteam_name = "A"\n{member_ref}')
    result = runner.invoke(app, ["migrate", str(source), "-w", str(tmp_path / "new")])
    assert result.exit_code == 0, result.output
    expected = (
        f"  configs/orchestrator.toml: orchestrator.teams[1].config: file not found: "
        f"{source}/configs/gone.toml"
        if missing == "team"
        else f"  configs/a.toml: team.members[0].config: file not found: {source}/configs/agents/gone.toml"
    )
    assert expected in result.output.splitlines()


def test_a_database_left_with_a_write_ahead_log_is_read_without_touching_it(
    tmp_path: Path, runner: CliRunner
) -> None:
    """mixseek-core killed mid-run leaves `mixseek.db.wal`; reading it read-only neither replays
    it into the file nor removes it."""
    source = tmp_path / "core"
    source.mkdir()
    create_database(source / "mixseek.db", [])
    writer = (
        "import duckdb, os, sys\n"
        "conn = duckdb.connect(sys.argv[1])\n"
        "conn.execute(\"SET wal_autocheckpoint = '1GB'\")\n"
        "conn.execute(\"INSERT INTO execution_summary VALUES ('from-wal', 'Prompt', 'completed', '[]', 1, "
        "NULL, NULL, 3.0, TIMESTAMP '2025-12-02 08:00:00', TIMESTAMP '2025-12-02 08:00:00')\")\n"
        "os._exit(0)\n"  # no checkpoint, as after kill -9
    )
    subprocess.run([sys.executable, "-c", writer, str(source / "mixseek.db")], check=True, timeout=120)
    wal = source / "mixseek.db.wal"
    assert wal.exists()
    before = {p.name: p.read_bytes() for p in source.iterdir() if p.is_file()}
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    assert {p.name: p.read_bytes() for p in source.iterdir() if p.is_file()} == before
    listing = json.loads(runner.invoke(app, ["runs", "list", "-w", str(dest), "-f", "json"]).output)
    assert [e["execution_id"] for e in listing] == ["from-wal"]


def test_what_still_does_not_load_is_listed(tmp_path: Path, runner: CliRunner) -> None:
    source = tmp_path / "core"
    write(
        source,
        "configs/team.toml",
        '[team]\nteam_id = "t"\nteam_name = "T"\n\n[[team.members]]\nname = "painter"\ntype = "image_gen"\n'
        'model = "openai:gpt-4o"\n',
    )
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        "  configs/team.toml: team.members[0].type: unknown member type 'image_gen' written as it is" in lines
    )
    problems = lines[lines.index("to fix before running (as 'mixseek config validate' reports them):") + 1 :]
    assert problems == [
        f"  {dest / 'configs/team.toml'}: team.members[0].agent_type: agent_type must be one of plain, "
        "web-search, web-fetch, code-exec, custom (got 'image_gen')"
    ]


def test_a_member_dispatch_this_mixseek_cannot_run_is_reported_and_left_out(
    tmp_path: Path, runner: CliRunner
) -> None:
    source = tmp_path / "core"
    member = '\n[[team.members]]\nagent_name = "m"\nagent_type = "plain"\nmodel = "openai:gpt-4o"\n'
    write(
        source,
        "configs/alone.toml",
        '[team]\nteam_id = "alone"\nteam_name = "Alone"\nmember_dispatch = "broadcast"\n',
    )
    write(
        source,
        "configs/odd.toml",
        f'[team]\nteam_id = "odd"\nteam_name = "Odd"\nmember_dispatch = "round_robin"\n{member}',
    )
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  configs/alone.toml: team.member_dispatch: no member was carried over to broadcast to" in lines
    assert (
        "  configs/odd.toml: team.member_dispatch: unknown value 'round_robin': the leader chooses members"
        in lines
    )
    assert not any(line.startswith("to fix") for line in lines)
    for name in ("alone", "odd"):
        team = tomllib.loads((dest / f"configs/{name}.toml").read_text(encoding="utf-8"))["team"]
        assert "member_dispatch" not in team
