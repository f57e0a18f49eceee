"""The `mixseek` command."""

from __future__ import annotations

import typer

from mixseek.cli.config_cmd import config_app
from mixseek.cli.init_cmd import init_command

app = typer.Typer(
    name="mixseek",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Teams of LLM agents compete on one task over rounds; an LLM judge scores them.",
)
app.command("init")(init_command)
app.add_typer(config_app, name="config")


def main() -> None:
    app()
