"""`mixseek ui`: its options, its one-line refusals, and a real server in a subprocess that prints
its URL, answers, and stops on Ctrl-C (exit code 130, like every command)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.cli.ui_cmd import UI_PACKAGES

ENV_TOKEN = "token-from-the-environment"
URL_LINE = re.compile(r"^mixseek ui: (?P<root>.+) on (?P<url>http://\S+/) \(Ctrl-C to stop\)$")


def invoke(runner: CliRunner, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["ui", *args], env=env)
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_help_names_every_option(runner: CliRunner) -> None:
    code, out, _ = invoke(runner, "--help")
    assert code == 0
    for option in (
        "--workspace",
        "-w",
        "--host",
        "--port",
        "--token",
        "MIXSEEK_UI_TOKEN",
        "127.0.0.1",
        "8765",
    ):
        assert option in out


def test_the_ui_command_is_listed(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--help"])
    assert re.search(r"│ ui\s+Serve a web dashboard", result.stdout)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "dashboard.lan"])
def test_a_non_loopback_bind_without_a_token_is_refused(runner: CliRunner, tmp_path: Path, host: str) -> None:
    code, out, err = invoke(runner, "-w", str(tmp_path), "--host", host)
    assert (code, out) == (2, "")
    assert err == f"error: --host {host}: a non-loopback bind needs --token (or MIXSEEK_UI_TOKEN)\n"


@pytest.mark.parametrize("given", [["--token", "short"], ["--token", "a"], ["--token", "x" * 15]])
def test_a_short_token_off_loopback_is_refused(tmp_path: Path, given: list[str]) -> None:
    """A real process (a bind it accepted would serve until killed): one line, exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "ui", "-w", str(tmp_path), "--host", "0.0.0.0", *given],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: --token (or MIXSEEK_UI_TOKEN): a non-loopback bind needs a token of at least 16 "
        f"characters (got {len(given[1])})\n"
    )


def test_an_empty_token_is_no_token(runner: CliRunner, tmp_path: Path) -> None:
    code, _, err = invoke(runner, "-w", str(tmp_path), "--host", "0.0.0.0", env={"MIXSEEK_UI_TOKEN": ""})
    assert code == 2 and "needs --token" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "Invalid value for '--port': Input should be less than or equal to 65535"),
        (["--port", "web"], "Invalid value for '--port': Input should be a valid integer"),
        (["--bogus"], "No such option: --bogus"),
    ],
)
def test_bad_arguments_exit_2(runner: CliRunner, tmp_path: Path, args: list[str], message: str) -> None:
    code, _, err = invoke(runner, "-w", str(tmp_path), *args)
    assert code == 2
    assert message in " ".join(err.replace("│", " ").split())


def test_a_missing_workspace_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    code, _, err = invoke(runner, "-w", str(tmp_path / "nope"))
    assert code == 2
    assert err == (
        f"error: --workspace: workspace directory does not exist: {tmp_path / 'nope'} (run 'mixseek init')\n"
    )


def test_a_port_in_use_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = invoke(runner, "-w", str(tmp_path), "--port", str(port))
    assert (code, out) == (2, "")
    assert err == f"error: --port {port}: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_without_the_ui_extra_it_says_what_to_install(tmp_path: Path) -> None:
    blocked = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None; "
        "from mixseek.cli.app import app; app(sys.argv[1:], prog_name='mixseek')"
    )
    result = subprocess.run(
        [sys.executable, "-c", blocked, "ui", "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: the dashboard needs the ui extra: "
        "pip install 'starlette>=0.46' 'uvicorn>=0.34' 'python-multipart>=0.0.20'\n"
    )
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["optional-dependencies"]["ui"] == list(UI_PACKAGES)


class Running:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url


def start(root: Path, *args: str, env: dict[str, str] | None = None) -> Running:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mixseek.cli", "ui", "-w", str(root), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once the socket listens
    match = URL_LINE.match(line.rstrip("\n"))
    assert match, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    assert match["root"] == str(root.resolve())
    return Running(proc, match["url"])


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_it_serves_the_workspace_until_ctrl_c(tmp_path: Path, processes: list[subprocess.Popen[str]]) -> None:
    running = start(tmp_path)
    processes.append(running.proc)
    assert running.url.startswith("http://127.0.0.1:")
    response = httpx.get(running.url, timeout=60)
    assert response.status_code == 200
    assert f"No executions yet in {tmp_path.resolve()}." in response.text
    running.proc.send_signal(signal.SIGINT)
    _, err = running.proc.communicate(timeout=120)
    assert (running.proc.returncode, err) == (130, "interrupted\n")  # as every command's Ctrl-C


def test_a_token_from_the_environment_guards_a_non_loopback_bind(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    running = start(tmp_path, "--host", "0.0.0.0", env={"MIXSEEK_UI_TOKEN": ENV_TOKEN})
    processes.append(running.proc)
    assert running.url.startswith("http://0.0.0.0:")
    assert running.proc.stdout is not None
    assert (
        running.proc.stdout.readline()
        == "open it once with ?token=TOKEN (or send 'Authorization: Bearer TOKEN')\n"
    )
    local = running.url.replace("0.0.0.0", "127.0.0.1")
    assert httpx.get(local, timeout=60).status_code == 401
    assert httpx.get(local, headers={"authorization": f"Bearer {ENV_TOKEN}"}, timeout=60).status_code == 200
    running.proc.send_signal(signal.SIGINT)
    running.proc.communicate(timeout=120)
    assert running.proc.returncode == 130
