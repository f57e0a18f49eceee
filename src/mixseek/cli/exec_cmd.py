"""`mixseek exec`: run (or resume) an execution through `Mixseek.iter`, with its checks, logs, live view and
summary; stopped early, one line says what became of it (exit 130 or 2)."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.console import print_line, stderr_console, stdout_console
from mixseek.cli.engine_logs import engine_logs
from mixseek.cli.engine_options import (
    EngineOption,
    GovernorListenOption,
    TemporalAddressOption,
    WorkersOption,
    this_program,
)
from mixseek.cli.errors import EXIT_FAILURE, cli_errors, refuse_problems, report, warn_problems
from mixseek.cli.interrupts import EXIT_INTERRUPTED, announce_interrupt, ignore_interrupts, say_on_interrupt
from mixseek.cli.json_stderr import JsonLines, use_json_stderr
from mixseek.cli.loading_guard import NOTHING_STARTED
from mixseek.cli.options import OrchestratorOption, OutputFormatOption, PromptFileOption, WorkspaceOption
from mixseek.cli.otel import OtelContentOption, OtelOption, apply_otel
from mixseek.cli.prompt_input import given_reference, given_text
from mixseek.cli.render import check_output_format, print_json
from mixseek.config.workspace import Workspace, resolve_workspace
from mixseek.errors import InputError
from mixseek.orchestrator.execution_ids import EXECUTION_ID_RULE, is_valid_execution_id

if TYPE_CHECKING:
    from mixseek.config.bundle import ExecutionConfig
    from mixseek.orchestrator.engine import Engine, EnginePlan
    from mixseek.orchestrator.events import EventSink
    from mixseek.orchestrator.models import ExecutionSummary
    from mixseek.storage.aggregation_store import AggregationStore
    from mixseek.storage.views import ExecutionView

PromptArgument = Annotated[
    str | None, typer.Argument(metavar="PROMPT", help="The task every team works on.", show_default=False)
]
ReferenceOption = Annotated[
    str | None,
    typer.Option(
        "--reference",
        help="A reference answer for the reference metrics (reference_similarity); never shown to the teams.",
        show_default=False,
    ),
]
ReferenceFileOption = Annotated[
    str | None,
    typer.Option(
        "--reference-file", help="Read the reference answer from PATH ('-': stdin).", show_default=False
    ),
]
ResumeOption = Annotated[
    str | None, typer.Option("--resume", help="Continue an interrupted execution.", show_default=False)
]
ExecutionIdOption = Annotated[
    str | None,
    typer.Option(
        "--execution-id", help="The new execution's id (default: a generated one).", show_default=False
    ),
]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Check everything; call no model.")]
LogFormatOption = Annotated[
    str, typer.Option("--log-format", help="logs/mixseek.log and stderr as text or json.")
]


@cli_errors
def exec_command(
    prompt: PromptArgument = None,
    prompt_file: PromptFileOption = None,
    reference: ReferenceOption = None,
    reference_file: ReferenceFileOption = None,
    config: OrchestratorOption = None,
    workspace: WorkspaceOption = None,
    output_format: OutputFormatOption = "text",
    resume: ResumeOption = None,
    execution_id: ExecutionIdOption = None,
    dry_run: DryRunOption = False,
    log_format: LogFormatOption = "text",
    otel: OtelOption = None,
    otel_content: OtelContentOption = None,
    engine: EngineOption = None,
    temporal_address: TemporalAddressOption = None,
    workers: WorkersOption = None,
    governor_listen: GovernorListenOption = None,
) -> None:
    """Run all teams on PROMPT for up to max_rounds rounds; the best submission wins."""
    try:  # from the first statement: a Ctrl-C at any moment before the execution is told
        check_output_format(log_format, "--log-format")
        if log_format == "json":
            use_json_stderr()
        check_output_format(output_format)
        prompt = given_text(prompt, prompt_file, name="PROMPT", option="--prompt-file")
        if resume is None and (prompt is None or not prompt.strip()):
            raise InputError(
                "PROMPT: give the task as an argument or with --prompt-file (or --resume EXECUTION_ID)"
            )
        if resume is not None and prompt is not None:
            raise InputError("PROMPT: not allowed with --resume (the execution keeps its prompt)")
        _check_execution_id(execution_id, resume)
        reference = given_reference(reference, reference_file, resume=resume)
        ws = resolve_workspace(workspace)
        # the engine loads only once the arguments are good, not with the module (`--help` imports it)
        from mixseek.config.bundle import load_execution_config
        from mixseek.orchestrator.engine import plan_engine
        from mixseek.orchestrator.orchestrator import new_execution_id
        from mixseek.orchestrator.preflight import reference_problems
        from mixseek.storage.health import check_store

        loaded = apply_otel(load_execution_config(ws, config), otel, otel_content)  # as `load_workspace` does
        warn_problems(loaded.self_judges())
        if dry_run:
            _dry_run(loaded, output_format)
            return
        refuse_problems(reference_problems(loaded))
        # no model is built, let alone called, before the store is known to be readable and writable
        check_store(ws.db_path)
        plan = plan_engine(loaded, engine, temporal_address, workers, governor_listen)
        run = _Run(loaded, resume or execution_id or new_execution_id(), prompt, resume, plan, reference)
    except KeyboardInterrupt:
        ignore_interrupts()
        announce_interrupt(NOTHING_STARTED)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    raise typer.Exit(_run_and_report(run, output_format, log_format))


def _run_and_report(run: _Run, output_format: str, log_format: str) -> int:
    """The execution's exit code, its summary printed; stopped early, what became of it."""
    from mixseek.orchestrator.engine_lost import EngineLost
    from mixseek.storage.aggregation_store import AggregationStore
    from mixseek.storage.errors import StorageError

    ws = run.config.workspace
    # read-only: a full disk would refuse the checkpoint a read-write store makes as it closes
    store = AggregationStore(ws.db_path, read_only=True)
    # from here on the execution may exist: an interrupt says what the store holds at that moment
    aftermath = functools.partial(_aftermath, store, ws, run.execution_id)
    say_on_interrupt(lambda: f"interrupted: {aftermath()}")
    try:
        summary = _execute(run, output_format, log_format)
        if output_format == "json":
            print_json(summary.model_dump(mode="json"))
        else:
            from mixseek.cli.summary_view import print_summary

            print_summary(stdout_console(), summary)
    except KeyboardInterrupt:
        ignore_interrupts()
        announce_interrupt()
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except (StorageError, EngineLost) as exc:
        # the store or the engine failed under a running execution: say so, and what became of it
        report(f"{exc}; {aftermath()}")
        raise typer.Exit(EXIT_FAILURE) from None
    return summary.exit_code


def _check_execution_id(execution_id: str | None, resume: str | None) -> None:
    """A chosen id (the dashboard chooses one to show the execution at once) looks like a generated one."""
    if execution_id is None:
        return
    if resume is not None:
        raise InputError("--execution-id: not allowed with --resume (the execution keeps its id)")
    if not is_valid_execution_id(execution_id):
        raise InputError(f"--execution-id: {execution_id!r}: {EXECUTION_ID_RULE}")


def _dry_run(loaded: ExecutionConfig, output_format: str) -> None:
    import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

    from mixseek.orchestrator.preflight import preflight

    problems = asyncio.run(preflight(loaded))
    for problem in problems:
        stderr_console().print(f"error: {problem}", markup=False)
    team_ids = [e.config.team_id for e in loaded.teams]
    if output_format == "json":
        print_json({"dry_run": "ok" if not problems else "failed", "teams": team_ids, "problems": problems})
    elif not problems:
        rounds = loaded.orchestrator.value.max_rounds
        line = f"dry run OK: {len(team_ids)} team(s) ({', '.join(team_ids)}), up to {rounds} round(s)"
        stdout_console().print(f"{line}; no model was called", markup=False)
    if problems:
        raise typer.Exit(EXIT_FAILURE)


@dataclass(frozen=True)
class _Run:
    """One execution to run: a new one (`prompt`) or a resumed one (`resume`)."""

    config: ExecutionConfig
    execution_id: str
    prompt: str | None
    resume: str | None
    engine: EnginePlan
    reference: str | None = None


def _execute(run: _Run, output_format: str, log_format: str) -> ExecutionSummary:
    """Run the execution with its logs and live view; they are closed before this returns or raises."""
    import asyncio

    from mixseek.cli.live_view import LiveView
    from mixseek.orchestrator.events import JsonlFileSink, LogLineSink

    ws = run.config.workspace
    max_rounds = run.config.orchestrator.value.max_rounds
    teams = [entry.config.team_id for entry in run.config.teams]
    interactive = sys.stdout.isatty() and output_format == "text"
    stored = _stored_view(ws, run.resume) if run.resume is not None else None
    with ExitStack() as stack:
        stack.enter_context(engine_logs(ws, log_format=log_format))
        sinks: list[EventSink] = [JsonlFileSink(ws.logs / f"{run.execution_id}.jsonl")]
        # the engine before the live table, whose redraws would garble what starting it prints
        announce = functools.partial(stderr_console().print, markup=False)
        engine = stack.enter_context(run.engine.start(run.config, announce, this_program()))
        say: Callable[[str], None]
        if interactive:
            live = stack.enter_context(LiveView(stdout_console(), max_rounds, teams=teams, stored=stored))
            sinks.append(live)
            say = live.note
        else:
            sinks.append(sys.stderr.event if isinstance(sys.stderr, JsonLines) else LogLineSink(sys.stderr))
            say = functools.partial(print_line, err=True)
        if stored is not None:
            line = _resuming_line(stored, len(teams), max_rounds)  # once the resume has begun, not if refused
            sinks.append(lambda event: say(line) if event.kind == "execution_resumed" else None)
        return asyncio.run(_follow(run, sinks, engine))


def _stored_view(ws: Workspace, execution_id: str) -> ExecutionView | None:
    """The store's outline of an execution about to be resumed; None if unreadable (the resume says why)."""
    import duckdb

    from mixseek.storage.errors import StorageError
    from mixseek.storage.quick_read import read_once
    from mixseek.storage.read_model import read_execution_outline

    try:
        return read_once(ws.db_path, lambda conn: read_execution_outline(conn, execution_id))
    except (StorageError, duckdb.Error):
        return None


def _resuming_line(stored: ExecutionView, teams: int, max_rounds: int) -> str:
    """How far the resumed execution had got: its team rounds that ended are not run again."""
    from mixseek.cli.live_view import UNFINISHED

    done = sum(1 for team in stored.teams for r in team.rounds if r.status not in UNFINISHED)
    return f"resuming {stored.execution_id}: {done} of up to {teams * max_rounds} team rounds already stored"


async def _follow(run: _Run, sinks: list[EventSink], engine: Engine) -> ExecutionSummary:
    """The execution, each of its events handed to every sink (a failing sink stops nothing)."""
    from mixseek.api.mixseek import Mixseek

    new_id = run.execution_id if run.resume is None else None
    iteration = Mixseek.from_config(run.config).iter(
        run.prompt, reference=run.reference, execution_id=new_id, resume=run.resume, engine=engine
    )
    async with iteration as execution:
        async for event in execution:
            for sink in sinks:
                with contextlib.suppress(Exception):
                    sink(event)
    return execution.result


def _aftermath(store: AggregationStore, ws: Workspace, execution_id: str) -> str:
    """What a user can do with the execution after it stopped early, as read from the store."""
    import asyncio

    import duckdb

    from mixseek.orchestrator.orchestrator import RESUMABLE_STATUSES
    from mixseek.storage.errors import StorageError

    resume = f"resume with: mixseek exec --resume {execution_id} -w {ws.root}"
    try:
        record = asyncio.run(store.get_execution(execution_id))
    except (StorageError, duckdb.Error):
        return f"if execution {execution_id} was started, {resume}"
    finally:
        with contextlib.suppress(StorageError):
            store.close()
    if record is None:
        return "no execution was started"
    if record.status in RESUMABLE_STATUSES:
        return resume
    return (
        f"execution {execution_id} had already ended ({record.status}); "
        f"see: mixseek runs show {execution_id} -w {ws.root}"
    )
