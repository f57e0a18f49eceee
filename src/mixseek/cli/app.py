"""The `mixseek` command."""

from __future__ import annotations

import typer

from mixseek.cli.bench_cmd import bench_command
from mixseek.cli.config_cmd import config_app
from mixseek.cli.console import silence_library_banners
from mixseek.cli.doctor_cmd import doctor_command
from mixseek.cli.evaluate_cmd import evaluate_command
from mixseek.cli.exec_cmd import exec_command
from mixseek.cli.init_cmd import init_command
from mixseek.cli.judges_cmd import judges_app
from mixseek.cli.migrate_cmd import migrate_command
from mixseek.cli.options import VersionOption
from mixseek.cli.runs_cmd import runs_app
from mixseek.cli.team_cmd import member_command, team_command
from mixseek.cli.ui_cmd import ui_command
from mixseek.cli.worker_cmd import worker_command

app = typer.Typer(
    name="mixseek",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Teams of LLM agents compete on one task over rounds; an LLM judge scores them.",
)


@app.callback()
def _options(version: VersionOption = False) -> None:
    silence_library_banners()


app.command("init")(init_command)
app.add_typer(config_app, name="config")
app.command("exec")(exec_command)
app.command("bench")(bench_command)
app.command("team")(team_command)
app.command("member")(member_command)
app.command("evaluate")(evaluate_command)
app.add_typer(runs_app, name="runs")
app.add_typer(judges_app, name="judges")
app.command("ui")(ui_command)
app.command("worker")(worker_command)
app.command("doctor")(doctor_command)
app.command("migrate")(migrate_command)


def main() -> None:
    app()
