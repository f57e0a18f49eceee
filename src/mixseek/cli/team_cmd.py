"""`mixseek team` and `mixseek member`: run one team or one member on a prompt, once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from pydantic_ai import RunUsage
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from mixseek.agents.leader.agent import LeaderTeam, TeamRunResult
from mixseek.agents.member.registry import create_member
from mixseek.cli.console import stdout_console
from mixseek.cli.errors import cli_errors
from mixseek.cli.options import OutputFormatOption, PromptFileOption
from mixseek.cli.prompt_input import given_text, required_text
from mixseek.cli.render import check_output_format, print_json, usage_json, usage_table
from mixseek.config.teams import load_member_file, load_team_file
from mixseek.text_safety import strip_controls

ConfigArg = Annotated[Path, typer.Option("--config", "-c", help="The TOML file to run.", show_default=False)]


def _prompt(argument: str | None, file: str | None) -> str:
    text = given_text(argument, file, name="PROMPT", option="--prompt-file")
    return required_text(text, name="PROMPT", option="--prompt-file")


def _print_team(result: TeamRunResult, team_id: str, team_name: str, usage: dict[str, RunUsage]) -> None:
    out = stdout_console()
    out.print(Rule(f"team {escape(team_id)} ({escape(team_name)})"))
    out.print(escape(strip_controls(result.output)), markup=True)
    members = Table(title="members", title_justify="left")
    for column in ("member", "type", "status", "ms", "requests", "input tokens", "output tokens", "error"):
        members.add_column(column)
    for s in result.record.submissions:
        members.add_row(
            escape(s.agent_name),
            s.agent_type,
            s.status,
            f"{s.execution_time_ms or 0:.0f}",
            str(s.usage.requests),
            str(s.usage.input_tokens),
            str(s.usage.output_tokens),
            escape(strip_controls(s.error_message or "")),
        )
    if result.record.submissions:
        out.print(members)
    else:
        out.print("(no member was called)")
    out.print(usage_table(usage))


@cli_errors
def team_command(
    config: ConfigArg,
    prompt: Annotated[str | None, typer.Argument(help="The task for the team.", show_default=False)] = None,
    prompt_file: PromptFileOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """Run one team (leader and members) on PROMPT once and show what each member did."""
    check_output_format(output_format)
    prompt = _prompt(prompt, prompt_file)
    path = config.resolve()
    team_config = load_team_file(path)
    team = LeaderTeam(team_config, base_dir=path.parent)
    result = asyncio.run(team.run(prompt))
    usage = {"leader": result.leader_usage, "members": result.record.total_usage, "total": result.usage}
    if output_format == "json":
        print_json(
            {
                "team_id": team_config.team_id,
                "team_name": team_config.team_name,
                "content": result.output,
                "members": [s.model_dump(mode="json") for s in result.record.submissions],
                "usage": {name: usage_json(u) for name, u in usage.items()},
            }
        )
        return
    _print_team(result, team_config.team_id, team_config.team_name, usage)


@cli_errors
def member_command(
    config: ConfigArg,
    prompt: Annotated[str | None, typer.Argument(help="The task for the member.", show_default=False)] = None,
    prompt_file: PromptFileOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """Run one member agent on PROMPT once."""
    check_output_format(output_format)
    prompt = _prompt(prompt, prompt_file)
    path = config.resolve()
    member_config = load_member_file(path)
    member = create_member(member_config, base_dir=path.parent)
    result = asyncio.run(member.run(prompt))
    if output_format == "json":
        print_json(
            {
                "agent_name": member_config.agent_name,
                "agent_type": member_config.agent_type,
                "content": result.content,
                "usage": usage_json(result.usage),
            }
        )
        return
    out = stdout_console()
    out.print(Rule(f"member {escape(member_config.agent_name)} ({member_config.agent_type})"))
    out.print(escape(strip_controls(result.content)))
    out.print(usage_table({member_config.agent_name: result.usage}))
