"""The `mixseek` command. Commands load when used: the root group knows how to import each, and Typer converts
a command to Click's only when it runs or its help shows, so `runs list` loads the `runs` group alone. A
command lifts `cli.loading_guard` as it begins: Ctrl-C then interrupts it rather than the loading."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

import typer
import typer.main
from typer._click import Context as ClickContext
from typer.core import TyperGroup, TyperOption

from mixseek.cli.console import silence_library_banners
from mixseek.cli.interrupts import INTERRUPTED, say_on_interrupt
from mixseek.cli.loading_guard import lift
from mixseek.cli.options import VersionOption

if TYPE_CHECKING:
    from typer._click import Command, Context

Registered = typer.Typer | Callable[..., None]
"""What a module defines: a group of commands (a `typer.Typer`) or one command's function."""


COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("mixseek.cli.init_cmd", "init_command"),
    "exec": ("mixseek.cli.exec_cmd", "exec_command"),
    "bench": ("mixseek.cli.bench_cmd", "bench_command"),
    "team": ("mixseek.cli.team_cmd", "team_command"),
    "member": ("mixseek.cli.team_cmd", "member_command"),
    "evaluate": ("mixseek.cli.evaluate_cmd", "evaluate_command"),
    "ui": ("mixseek.cli.ui_cmd", "ui_command"),
    "worker": ("mixseek.cli.worker_cmd", "worker_command"),
    "doctor": ("mixseek.cli.doctor_cmd", "doctor_command"),
    "migrate": ("mixseek.cli.migrate_cmd", "migrate_command"),
    "config": ("mixseek.cli.config_cmd", "config_app"),
    "runs": ("mixseek.cli.runs_cmd", "runs_app"),
    "judges": ("mixseek.cli.judges_cmd", "judges_app"),
}
"""Every command and group of `mixseek` (module, name in it), in the order `mixseek --help` lists
them (Typer's: the commands first, then the groups)."""

RUNNING_EXECUTIONS = frozenset({"exec", "bench"})
"""The commands whose Ctrl-C tells what became of their executions: until they know more, that
none was started. Any other command's, once it has begun, is a plain `interrupted`."""


def _convert(name: str, where: tuple[str, str]) -> Command:
    """The command `where` names, imported, as a Click command named `name`: converted as Typer converts what
    `app.command(name)` or `app.add_typer(..., name=name)` registered, with `app`'s settings."""
    module, attribute = where
    registered: Registered = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(
        add_completion=False,
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
        suggest_commands=app.suggest_commands,
    )
    if isinstance(registered, typer.Typer):
        holder.add_typer(registered, name=name)
    else:
        holder.command(name)(registered)
    command = typer.main.get_group(holder).commands[name]
    return _tidy_help(_interruptible(command, runs_executions=name in RUNNING_EXECUTIONS))


def _interruptible(command: Command, *, runs_executions: bool) -> Command:
    """`command` (and a group's commands) lifting the loading guard as it begins: from its first statement a
    Ctrl-C raises KeyboardInterrupt there, for the command to clean up."""
    callback = command.callback
    if callback is not None:

        @functools.wraps(callback)
        def begin(*args: Any, **kwargs: Any) -> Any:
            if not runs_executions:
                say_on_interrupt(INTERRUPTED)
            lift()
            return callback(*args, **kwargs)

        command.callback = begin
    for sub in getattr(command, "commands", {}).values():
        _interruptible(sub, runs_executions=runs_executions)
    return command


def _tidy_help(command: Command, *, subcommands: bool = True) -> Command:
    """`command` (and a group's commands) with help that reads right at any width: no metavar on a flag, a
    group's list showing a docstring's first paragraph as one line."""
    help_option = command.get_help_option(ClickContext(command))  # made once, then kept
    for param in [*command.params, help_option]:
        if isinstance(param, TyperOption) and param.is_bool_flag:
            param.metavar = ""
    if command.short_help is None and command.help:
        command.short_help = " ".join(command.help.split("\n\n")[0].split())
    for sub in getattr(command, "commands", {}).values() if subcommands else ():
        _tidy_help(sub)
    return command


class _OnUse(MutableMapping[str, "Command"]):
    """A group's commands by name, each one converted the first time it is looked up."""

    def __init__(self, loaders: dict[str, Callable[[], Command]]) -> None:
        self._loaders = loaders
        self._converted: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        if name not in self._converted:
            self._converted[name] = self._loaders[name]()
        return self._converted[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._loaders[name] = lambda: command
        self._converted[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaders[name]
        self._converted.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


class _MixseekGroup(TyperGroup):
    """The root group: its commands (`COMMANDS`) are loaded and converted on use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        registered = dict(self.commands)  # any registered on `app` itself come after
        self.commands = _OnUse(
            {name: functools.partial(_convert, name, where) for name, where in COMMANDS.items()}
        )
        self.commands.update(registered)
        _tidy_help(self, subcommands=False)  # --version, --help; each command's when it is converted

    def list_commands(self, ctx: Context) -> list[str]:
        return list(self.commands)  # the names alone: Typer's own list converts every command


app = typer.Typer(
    name="mixseek",
    cls=_MixseekGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Teams of LLM agents compete on one task over rounds; an LLM judge scores them.",
)


@app.callback()
def _options(version: VersionOption = False) -> None:
    silence_library_banners()


def main() -> None:
    app()
