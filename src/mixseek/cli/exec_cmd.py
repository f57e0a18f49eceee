"""`mixseek exec`: run every team over rounds, or resume an interrupted execution."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from contextlib import ExitStack
from typing import Annotated

import typer

from mixseek.cli.console import stderr_console, stdout_console
from mixseek.cli.errors import EXIT_FAILURE, cli_errors
from mixseek.cli.live_view import LiveView
from mixseek.cli.options import OrchestratorOption, OutputFormatOption, WorkspaceOption
from mixseek.cli.render import check_output_format, print_json
from mixseek.cli.summary_view import print_summary
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace, resolve_workspace
from mixseek.errors import MixseekError
from mixseek.orchestrator.events import EventSink, JsonlFileSink, LogLineSink
from mixseek.orchestrator.models import EXIT_CODES
from mixseek.orchestrator.orchestrator import Orchestrator, new_execution_id
from mixseek.orchestrator.preflight import preflight


class _JsonLogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = {
            "at": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def _file_logging(workspace: Workspace, log_format: str) -> logging.Handler:
    workspace.logs.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(workspace.logs / "mixseek.log", encoding="utf-8")
    handler.setFormatter(
        _JsonLogFormatter()
        if log_format == "json"
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger("mixseek")
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    return handler


@cli_errors
def exec_command(
    prompt: Annotated[
        str | None, typer.Argument(help="The task every team works on.", show_default=False)
    ] = None,
    config: OrchestratorOption = None,
    workspace: WorkspaceOption = None,
    output_format: OutputFormatOption = "text",
    resume: Annotated[
        str | None, typer.Option("--resume", help="Continue an interrupted execution.", show_default=False)
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check everything; call no model.")] = False,
    log_format: Annotated[
        str, typer.Option("--log-format", help="logs/mixseek.log as text or json.")
    ] = "text",
) -> None:
    """Run all teams on PROMPT for up to max_rounds rounds; the best submission wins."""
    check_output_format(output_format)
    check_output_format(log_format, "--log-format")
    if resume is None and (prompt is None or not prompt.strip()):
        raise MixseekError("PROMPT: give the task as an argument (or --resume EXECUTION_ID)")
    if resume is not None and prompt is not None:
        raise MixseekError("PROMPT: not allowed with --resume (the execution keeps its prompt)")
    ws = resolve_workspace(workspace)
    loaded = load_execution_config(ws, config)
    if dry_run:
        problems = asyncio.run(preflight(loaded))
        err = stderr_console()
        for problem in problems:
            err.print(f"error: {problem}", markup=False)
        team_ids = [e.config.team_id for e in loaded.teams]
        if output_format == "json":
            print_json(
                {"dry_run": "ok" if not problems else "failed", "teams": team_ids, "problems": problems}
            )
        if problems:
            raise typer.Exit(EXIT_FAILURE)
        if output_format == "json":
            return
        teams = ", ".join(team_ids)
        stdout_console().print(
            f"dry run OK: {len(loaded.teams)} team(s) ({teams}), up to "
            f"{loaded.orchestrator.value.max_rounds} round(s); no model was called",
            markup=False,
        )
        return
    execution_id = resume or new_execution_id()
    interactive = sys.stdout.isatty() and output_format == "text"
    with ExitStack() as stack:
        handler = _file_logging(ws, log_format)
        stack.callback(logging.getLogger("mixseek").removeHandler, handler)
        sinks: list[EventSink] = [JsonlFileSink(ws.logs / f"{execution_id}.jsonl")]
        if interactive:
            live = stack.enter_context(LiveView(stdout_console(), loaded.orchestrator.value.max_rounds))
            sinks.append(live)
        else:
            sinks.append(LogLineSink(sys.stderr))
        orchestrator = Orchestrator(loaded, sinks=sinks)
        try:
            if resume is not None:
                summary = asyncio.run(orchestrator.resume(resume))
            else:
                assert prompt is not None
                summary = asyncio.run(orchestrator.run(prompt, execution_id=execution_id))
        except KeyboardInterrupt:
            stack.close()
            stderr_console().print(
                f"interrupted: resume with: mixseek exec --resume {execution_id} -w {ws.root}", markup=False
            )
            raise typer.Exit(EXIT_CODES["interrupted"]) from None
    if output_format == "json":
        print_json(summary.model_dump(mode="json"))
    else:
        print_summary(stdout_console(), summary)
    raise typer.Exit(summary.exit_code)
