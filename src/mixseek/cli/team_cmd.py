"""`mixseek team` and `mixseek member`: run one team or one member on a prompt, once; the agents load inside
the commands, since every `mixseek` command, `--help` too, imports this module."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.console import stdout_console
from mixseek.cli.errors import EXIT_FAILURE, cli_errors, report
from mixseek.cli.options import OutputFormatOption, PromptFileOption
from mixseek.cli.prompt_input import given_text, required_text
from mixseek.cli.render import check_output_format, print_json, usage_json, usage_table
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from pydantic_ai import RunUsage

    from mixseek.agents.team_result import TeamRunResult
    from mixseek.config.team_models import TeamConfig

ConfigArg = Annotated[Path, typer.Option("--config", "-c", help="The TOML file to run.", show_default=False)]


def _prompt(argument: str | None, file: str | None) -> str:
    text = given_text(argument, file, name="PROMPT", option="--prompt-file")
    return required_text(text, name="PROMPT", option="--prompt-file")


def _usage(result: TeamRunResult, kind: str) -> dict[str, RunUsage]:
    """The team's cost by who spent it: a workflow team has no leader, only its executors."""
    parts = {} if kind == "workflow" else {"leader": result.leader_usage}
    return {**parts, "members": result.record.total_usage, "total": result.usage}


def _print_team(result: TeamRunResult, config: TeamConfig, usage: dict[str, RunUsage]) -> None:
    from rich.markup import escape
    from rich.rule import Rule
    from rich.table import Table

    out = stdout_console()
    out.print(Rule(f"team {escape(config.team_id)} ({escape(config.team_name)}): {config.kind}"))
    out.print(escape(strip_controls(result.output)), markup=True)
    members = Table(title="members", title_justify="left")
    steps = config.kind == "workflow"
    columns = ("member", "type", "status", "ms", "requests", "input tokens", "output tokens", "error")
    for column in ("step", *columns) if steps else columns:
        # names are never cut short on a narrow terminal; the error column folds instead
        members.add_column(column, no_wrap=column in ("step", "member", "type", "status"), overflow="fold")
    for s in result.record.submissions:
        row = [
            escape(s.agent_name),
            s.agent_type,
            s.status,
            f"{s.execution_time_ms or 0:.0f}",
            str(s.usage.requests),
            str(s.usage.input_tokens),
            str(s.usage.output_tokens),
            escape(strip_controls(s.error_message or "")),
        ]
        members.add_row(*([escape(s.step_id or "")] if steps else []), *row)
    if result.record.submissions:
        out.print(members)
    else:
        out.print("(no member was called)")
    out.print(usage_table(usage))


def _load_team(path: Path) -> TeamConfig:
    """The team file, each missing workflow function a line naming its file and key (as `config validate`)."""
    from mixseek.config.bundle import TeamEntry
    from mixseek.config.teams import load_team
    from mixseek.orchestrator.preflight import function_problems

    loaded = load_team(path)
    entry = TeamEntry(path, loaded.config, loaded.member_origins, loaded.workflow_key)
    problems = function_problems(entry.function_sites())
    for problem in problems:
        report(str(problem))
    if problems:
        raise typer.Exit(EXIT_FAILURE)
    return loaded.config


@cli_errors
def team_command(
    config: ConfigArg,
    prompt: Annotated[
        str | None, typer.Argument(metavar="PROMPT", help="The task for the team.", show_default=False)
    ] = None,
    prompt_file: PromptFileOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """Run one team (a leader and its members, or a workflow's steps) on PROMPT once and show what
    each member or executor did."""
    from mixseek.agents.team import create_team

    check_output_format(output_format)
    prompt = _prompt(prompt, prompt_file)
    path = config.resolve()
    team_config = _load_team(path)
    team = create_team(team_config, base_dir=path.parent)
    import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

    result = asyncio.run(team.run(prompt))
    usage = _usage(result, team_config.kind)
    if output_format == "json":
        print_json(
            {
                "team_id": team_config.team_id,
                "team_name": team_config.team_name,
                "kind": team_config.kind,
                "content": result.output,
                "members": [s.model_dump(mode="json") for s in result.record.submissions],
                "usage": {name: usage_json(u) for name, u in usage.items()},
            }
        )
        return
    _print_team(result, team_config, usage)


@cli_errors
def member_command(
    config: ConfigArg,
    prompt: Annotated[
        str | None, typer.Argument(metavar="PROMPT", help="The task for the member.", show_default=False)
    ] = None,
    prompt_file: PromptFileOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """Run one member agent on PROMPT once."""
    from mixseek.agents.member.registry import create_member
    from mixseek.config.teams import load_member_file

    check_output_format(output_format)
    prompt = _prompt(prompt, prompt_file)
    path = config.resolve()
    member_config = load_member_file(path)
    member = create_member(member_config, base_dir=path.parent)
    import asyncio

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
    from rich.markup import escape
    from rich.rule import Rule

    out = stdout_console()
    out.print(Rule(f"member {escape(member_config.agent_name)} ({member_config.agent_type})"))
    out.print(escape(strip_controls(result.content)))
    out.print(usage_table({member_config.agent_name: result.usage}))
