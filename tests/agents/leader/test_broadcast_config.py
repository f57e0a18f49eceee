"""`member_dispatch` in a team file, through `mixseek config validate`: one line, exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app

TEAM_FILE = "configs/agents/team-analysts.toml"


def _set_team(workspace: Path, dispatch: str, *, members: bool) -> None:
    path = workspace / TEAM_FILE
    text = path.read_text(encoding="utf-8")
    head, sep, _members = text.partition("[[team.members]]")
    assert sep, f"no members in {path}"
    if not members:
        text = head
    path.write_text(
        text.replace(
            'team_name = "Analysts"\n', f'team_name = "Analysts"\nmember_dispatch = "{dispatch}"\n', 1
        ),
        encoding="utf-8",
    )


def _validate(runner: CliRunner, workspace: Path) -> tuple[int, str, str]:
    result = runner.invoke(
        app, ["config", "validate", "-w", str(workspace)], env={"OPENAI_API_KEY": "sk-test"}
    )
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_a_broadcast_team_with_members_validates(runner: CliRunner, workspace: Path) -> None:
    _set_team(workspace, "broadcast", members=True)
    code, out, err = _validate(runner, workspace)
    assert (code, err) == (0, "")
    assert "2 team(s): analysts, writers" in out


@pytest.mark.parametrize(
    ("dispatch", "members", "expected"),
    [
        ("broadcast", False, 'team: member_dispatch: "broadcast" needs at least one member'),
        ("all", True, "team.member_dispatch: Input should be 'selective' or 'broadcast'"),
    ],
    ids=["broadcast-without-members", "unknown-value"],
)
def test_bad_member_dispatch_is_one_line_naming_file_and_key(
    runner: CliRunner, workspace: Path, dispatch: str, members: bool, expected: str
) -> None:
    _set_team(workspace, dispatch, members=members)
    code, _, err = _validate(runner, workspace)
    assert code == 2
    assert err.strip().splitlines() == [f"error: {workspace}/{TEAM_FILE}: {expected}", "1 problem(s) found"]
