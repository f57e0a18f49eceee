"""code-exec through the CLI, as a user meets it: escapes tried by model-written code, and the sandbox
chosen (or refused) at start-up. Real `mixseek` processes with scripted models (run_code_exec_cli.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from code_exec_support import SLEEP, new_marker, require_sandbox, wait_gone
from typer.testing import CliRunner

from mixseek.cli.app import app

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux namespaces, /proc and rlimits")

RUNNER = Path(__file__).with_name("run_code_exec_cli.py")
CAP = 32
NO_SANDBOX = "warning: code-exec runs Python without a sandbox"

MEMBER = """
[member]
agent_name = "coder"
agent_type = "code-exec"
tool_description = "runs Python"
model = "script:coder"
[member.code_exec]
sandbox = "{sandbox}"
max_processes = {cap}
timeout_seconds = 120
"""

TEAM = """
[team]
team_id = "alpha"
team_name = "Alpha"
[team.leader]
model = "script:leader"
[[team.members]]
agent_name = "coder1"
agent_type = "code-exec"
tool_description = "runs Python"
model = "script:coder"
[[team.members]]
agent_name = "coder2"
agent_type = "code-exec"
tool_description = "runs Python too"
model = "script:coder"
"""


def mixseek(
    tmp_path: Path, args: list[str], code: str, *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "code.py"
    script.write_text(code, encoding="utf-8")
    full_env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CODE_EXEC_SCRIPT": str(script),
        "MODEL_CALLS": str(tmp_path / "model_calls.txt"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, str(RUNNER), *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )


def escape_code(secret: str, daemon: str, bomb: str) -> str:
    """Looks for the parent's secret in every readable /proc/*/environ, leaves a double-forked setsid
    daemon, then forks up to 200 sleepers (a bounded fork bomb)."""
    return f"""\
import os
secret = bytes.fromhex({secret.encode().hex()!r})
holders = 0
for name in os.listdir('/proc'):
    if name.isdigit():
        try:
            holders += secret in open('/proc/' + name + '/environ', 'rb').read()
        except OSError:
            pass
print('secret readable in', holders, 'processes')
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv({SLEEP!r}, [{daemon!r}, '300'])
    os._exit(0)
os.wait()
forked = failed = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        os.execv({SLEEP!r}, [{bomb!r}, '300'])
    forked += 1
print('forked', forked, 'failed', failed)
"""


@pytest.mark.parametrize("sandbox", ["process", "bubblewrap"])
async def test_model_written_code_cannot_read_keys_leave_daemons_or_fork_without_end(
    sandbox: str, tmp_path: Path
) -> None:
    require_sandbox(sandbox)
    secret = f"sk-fake-{uuid.uuid4().hex}"
    daemon, bomb = new_marker(), new_marker()
    member = tmp_path / "member.toml"
    member.write_text(MEMBER.format(sandbox=sandbox, cap=CAP), encoding="utf-8")
    done = mixseek(
        tmp_path,
        ["member", "-c", str(member), "計算して", "-f", "json"],
        escape_code(secret, daemon, bomb),
        env={"OPENAI_API_KEY": secret},
    )
    assert done.returncode == 0, done.stderr
    content = json.loads(done.stdout)["content"]
    assert content.startswith("status: exit code 0\n--- stdout ---\nsecret readable in 0 processes\n")
    found = re.search(r"^forked (\d+) failed (\d+)$", content, re.M)
    assert found is not None, content
    forked, failed = int(found[1]), int(found[2])
    assert forked < CAP
    assert failed > 0
    assert await wait_gone(daemon), "the setsid daemon outlived the command"
    assert await wait_gone(bomb), "the fork bomb's processes outlived the command"
    warnings = done.stderr.count(NO_SANDBOX)
    assert warnings == (1 if sandbox == "process" else 0), done.stderr


NO_USERNS = "bwrap: No permissions to create new namespace, likely because the kernel does not allow it"


@pytest.mark.parametrize("bwrap", ["missing", "broken"])
def test_required_bubblewrap_that_cannot_run_stops_the_command_before_any_model_call(
    bwrap: str, tmp_path: Path
) -> None:
    member = tmp_path / "member.toml"
    member.write_text(MEMBER.format(sandbox="bubblewrap", cap=CAP), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if bwrap == "broken":  # installed, but user namespaces are off (a hardened kernel, a container)
        fake = bin_dir / "bwrap"
        fake.write_text(f"#!/bin/sh\necho '{NO_USERNS}' >&2\nexit 1\n")
        fake.chmod(0o755)
        reason = f"cannot start {sys.executable!r} in bubblewrap: {NO_USERNS}"
    else:
        reason = "bwrap not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)"
    args = ["member", "-c", str(member), "計算して"]
    done = mixseek(tmp_path, args, "print(1)", env={"PATH": str(bin_dir)})
    assert done.returncode == 2
    assert (
        done.stderr == f"error: member 'coder': code_exec.sandbox: bubblewrap cannot be used here: {reason}\n"
    )
    assert done.stdout == ""
    assert not (tmp_path / "model_calls.txt").exists()


CODER = """
[[team.members]]
agent_name = "coder"
agent_type = "code-exec"
tool_description = "runs Python"
model = "openai:gpt-4o-mini"
[team.members.code_exec]
sandbox = "bubblewrap"
"""


def test_exec_and_validate_name_the_file_and_key_of_a_required_bubblewrap_that_is_missing(
    workspace: Path, tmp_path: Path
) -> None:
    team = workspace / "configs" / "agents" / "team-analysts.toml"
    text = team.read_text(encoding="utf-8").replace(
        "max_concurrent_members = 2", "max_concurrent_members = 3"
    )
    team.write_text(text + CODER, encoding="utf-8")
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    env = {"PATH": str(no_bwrap), "HOME": str(tmp_path), "OPENAI_API_KEY": "sk-fake"}
    line = (
        f"error: {team}: team.members[2].code_exec.sandbox: bubblewrap cannot be used here: "
        "bwrap not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)\n"
    )
    for args in (["exec", "課題", "-w", str(workspace)], ["exec", "課題", "--dry-run", "-w", str(workspace)]):
        done = subprocess.run(
            [sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True, env=env, check=False
        )
        assert done.returncode == 2
        assert done.stderr == line
    validate = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "config", "validate", "-w", str(workspace)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert validate.returncode == 2
    assert validate.stderr.startswith(line)
    assert not list((workspace / "logs").glob("*.jsonl"))  # no execution was started


def test_without_bubblewrap_auto_says_so_once_and_runs(tmp_path: Path) -> None:
    team = tmp_path / "team.toml"
    team.write_text(TEAM, encoding="utf-8")
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    done = mixseek(
        tmp_path,
        ["team", "-c", str(team), "計算して", "-f", "json"],
        "print(6 * 7)",
        env={"PATH": str(no_bwrap)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NO_SANDBOX) == 1, done.stderr
    assert (
        f"{NO_SANDBOX} (bubblewrap cannot be used: bwrap not found on PATH (Debian/Ubuntu: apt-get install "
        "bubblewrap)): model-written code can read and write your files and use the network; "
        "see README.md, 'Code execution'\n"
    ) in done.stderr
    members = json.loads(done.stdout)["members"]
    assert sorted(m["agent_name"] for m in members) == ["coder1", "coder2"]
    for m in members:
        assert m["content"] == "status: exit code 0\n--- stdout ---\n42\n--- stderr ---\n(empty)"


def test_an_unknown_sandbox_is_a_config_error(tmp_path: Path, runner: CliRunner) -> None:
    member = tmp_path / "member.toml"
    member.write_text(MEMBER.format(sandbox="docker", cap=CAP), encoding="utf-8")
    result = runner.invoke(app, ["member", "-c", str(member), "計算して"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "sandbox" in result.stderr
    assert "'auto', 'bubblewrap' or 'process'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
