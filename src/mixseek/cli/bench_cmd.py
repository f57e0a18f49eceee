"""`mixseek bench TASKS.jsonl`: every team on every task, N times, and which set-up is better."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.console import print_line
from mixseek.cli.engine_logs import engine_logs
from mixseek.cli.errors import EXIT_FAILURE, cli_errors, refuse_problems, report
from mixseek.cli.interrupts import EXIT_INTERRUPTED, announce_interrupt, ignore_interrupts
from mixseek.cli.options import OrchestratorOption, WorkspaceOption
from mixseek.cli.render import check_new_output
from mixseek.errors import InputError, MixseekError
from mixseek.exit_codes import ExitCode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mixseek.config.bundle import ExecutionConfig, TeamEntry
    from mixseek.config.workspace import Workspace
    from mixseek.storage.aggregation_store import AggregationStore
    from mixseek.storage.bench_store import BenchRecord
    from mixseek.tasksets.report import BenchReport
    from mixseek.tasksets.runner import RunStep
    from mixseek.tasksets.tasks import TaskSet

BENCH_FORMATS = ("text", "json", "markdown", "html")
ResumeOption = Annotated[
    str | None,
    typer.Option(
        "--resume",
        help="Run what bench BENCH_ID still misses (same task file); a larger --repeat adds runs.",
        show_default=False,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="BENCH_ID",
        help="Compare each team with an earlier bench of the same task file.",
        show_default=False,
    ),
]
FailIfWorseOption = Annotated[
    str | None,
    typer.Option(
        "--fail-if-worse",
        metavar="TEAM",
        help="Exit 1 when team TEAM scored significantly lower than --baseline (paired p < 0.05).",
        show_default=False,
    ),
]


@cli_errors
def bench_command(
    tasks_file: Annotated[
        Path,
        typer.Argument(
            metavar="TASKS.jsonl",
            help="One JSON object a line: prompt (required), id, reference, tags.",
            show_default=False,
        ),
    ],
    repeat: Annotated[
        int | None,
        typer.Option(
            "--repeat", "-n", min=1, metavar="N", help="Runs of each task (default 1).", show_default=False
        ),
    ] = None,
    workspace: WorkspaceOption = None,
    config: OrchestratorOption = None,
    output_format: Annotated[
        str, typer.Option("--format", "--output-format", "-f", help="text, json, markdown or html.")
    ] = "text",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the report to FILE instead of stdout.", show_default=False
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")] = False,
    resume: ResumeOption = None,
    baseline: BaselineOption = None,
    fail_if_worse: FailIfWorseOption = None,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Show the warnings logged, a failed round's traceback too."),
    ] = False,
) -> None:
    """Run every team on every task of TASKS.jsonl (N times each); report win rates, mean scores
    and ranks with confidence intervals, and pairwise tables with a sign test."""
    from mixseek.config.bundle import load_execution_config
    from mixseek.config.workspace import resolve_workspace
    from mixseek.orchestrator.preflight import reference_problems
    from mixseek.storage.health import check_store
    from mixseek.tasksets.tasks import load_tasks

    if output_format not in BENCH_FORMATS:
        raise InputError(f"--format: must be 'text', 'json', 'markdown' or 'html' (got '{output_format}')")
    check_new_output(output, force)
    tasks = load_tasks(tasks_file)
    ws = resolve_workspace(workspace)
    loaded = load_execution_config(ws, config)
    refuse_problems(reference_problems(loaded))
    _check_gate(baseline, fail_if_worse, loaded)
    check_store(ws.db_path)
    gate = (baseline, fail_if_worse)
    result = _run(tasks_file, tasks, ws, loaded, repeat=repeat, resume=resume, gate=gate, verbose=verbose)
    _emit(result, output_format, output, force)
    _conclude(result, ws, fail_if_worse)


def _check_gate(baseline: str | None, team: str | None, loaded: ExecutionConfig) -> None:
    teams = [entry.config.team_id for entry in loaded.teams]
    if team is not None and baseline is None:
        raise InputError("--fail-if-worse: needs --baseline BENCH_ID to compare with")
    if team is not None and team not in teams:
        raise InputError(
            f"--fail-if-worse: no team {team!r} in the configuration (teams: {', '.join(teams)})"
        )


def _run(
    tasks_file: Path,
    tasks: TaskSet,
    ws: Workspace,
    loaded: ExecutionConfig,
    *,
    repeat: int | None,
    resume: str | None,
    gate: tuple[str | None, str | None],
    verbose: bool,
) -> BenchReport:
    """Open (or resume) the bench, run what it misses, and read its report (stopped: how to resume)."""
    import asyncio  # here: `mixseek --help` needs neither an event loop nor the engine

    from mixseek.api.mixseek import Mixseek
    from mixseek.storage.aggregation_store import AggregationStore
    from mixseek.tasksets.runner import open_bench, run_bench

    store = AggregationStore(ws.db_path)
    baseline, gated = gate  # --baseline, --fail-if-worse
    prior = asyncio.run(_baseline(store, tasks, baseline, loaded.teams, gated)) if baseline else None
    bench = asyncio.run(open_bench(store, tasks, repeats=repeat, resume=resume))
    runs = bench.task_count * bench.repeats
    print_line(
        f"bench {bench.bench_id}: {bench.task_count} task(s) × {bench.repeats} repeat(s) = {runs} run(s)",
        err=True,
    )
    resume_with = f"resume with: mixseek bench {tasks_file} --resume {bench.bench_id} -w {ws.root}"
    try:
        with engine_logs(ws, verbose=verbose):
            asyncio.run(run_bench(Mixseek.from_config(loaded), store, bench, tasks, _progress))
    except KeyboardInterrupt:
        ignore_interrupts()
        announce_interrupt(f"interrupted: {resume_with}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except MixseekError as exc:  # the store failed under a run, or another process runs one
        report(f"{exc}; {resume_with}")
        raise typer.Exit(EXIT_FAILURE) from None
    return asyncio.run(_report(store, bench, tasks, loaded.teams, prior))


def _progress(step: RunStep) -> None:
    where = f"[{step.position}/{step.total}] task {step.task_id!r} repeat {step.repeat_number}"
    if step.failure is not None:
        failure = step.failure
        error = (failure.error or failure.status).replace("\n", " ")
        print_line(f"{where}: team {failure.team_id} round {failure.round_number} failed: {error}", err=True)
    elif step.action == "done":
        print_line(f"{where}: execution {step.execution_id} {step.status}", err=True)
    elif step.action == "resume":
        print_line(f"{where}: resuming execution {step.execution_id}", err=True)
    else:
        print_line(f"{where}: execution {step.execution_id} started", err=True)


def _conclude(result: BenchReport, ws: Workspace, fail_if_worse: str | None) -> None:
    """End with the exit code of the runs' outcome (or 1: `fail_if_worse` got worse), one line saying why."""
    worse = result.worse(fail_if_worse) if fail_if_worse else None
    if worse:
        print_line(worse, err=True)
    code = result.exit_code
    if code == ExitCode.SUCCESS:
        if worse:
            raise typer.Exit(ExitCode.PARTIAL_FAILURE)
        return
    parts = [result.unclean()] if result.unclean() else []
    if result.missing:
        parts.append(f"{result.missing} missing")
    ended = f" ({', '.join(parts)})" if parts else ""
    details = f"tracebacks in {ws.logs / 'mixseek.log'}"
    if code == ExitCode.FAILURE:
        report(f"bench {result.bench_id}: no run was scored{ended}, nothing to compare; {details}")
    else:
        unclean = sum(1 for o in result.outcomes if not o.clean) + result.missing
        print_line(
            f"partial failure: bench {result.bench_id}: {unclean} of {result.planned} run(s) did not "
            f"end cleanly{ended}; {details}",
            err=True,
        )
    raise typer.Exit(code)


async def _report(
    store: AggregationStore,
    bench: BenchRecord,
    tasks: TaskSet,
    teams: Sequence[TeamEntry],
    baseline: BenchReport | None,
) -> BenchReport:
    from mixseek.tasksets.report import compare

    report = await _read(store, bench, tasks, teams)
    await store.aclose()
    return report if baseline is None else compare(report, baseline)


async def _read(
    store: AggregationStore, bench: BenchRecord, tasks: TaskSet, teams: Sequence[TeamEntry]
) -> BenchReport:
    from mixseek.tasksets.report import build_report
    from mixseek.tasksets.results import collect

    outcomes, missing, names = await collect(store, bench, tasks)
    configured = {entry.config.team_id: entry.config.team_name for entry in teams}
    return build_report(bench.bench_id, tasks, bench.repeats, {**names, **configured}, outcomes, missing)


async def _baseline(
    store: AggregationStore, tasks: TaskSet, bench_id: str, teams: Sequence[TeamEntry], gated: str | None
) -> BenchReport:
    """The earlier bench `--baseline` names, read before this one runs (refused unless of these tasks)."""
    from mixseek.tasksets.runner import stored_bench

    # only the teams that ran in it: a team added since has nothing to compare with
    prior = await _read(store, await stored_bench(store, tasks, bench_id, "--baseline"), tasks, [])
    if gated is not None and gated not in [t.team_id for t in prior.teams]:
        raise InputError(f"--fail-if-worse: team {gated!r} has no scored run in bench {bench_id}")
    return prior


def _emit(result: BenchReport, output_format: str, output: Path | None, force: bool) -> None:
    from mixseek.cli.render import json_text, write_output
    from mixseek.redaction import redact

    if output_format == "text" and output is None:
        from mixseek.cli.bench_text import print_report
        from mixseek.cli.console import stdout_console

        print_report(stdout_console(), result)
        return
    if output_format == "json":
        text = json_text(result.as_json()) + "\n"
    elif output_format == "html":
        from mixseek.tasksets.html import render_html

        text = render_html(result)
    elif output_format == "markdown":
        from mixseek.tasksets.markdown import render_markdown

        text = render_markdown(result)
    else:
        text = _plain_text(result)
    text = redact(text)
    if output is None:
        typer.echo(text, nl=False)
        return
    write_output(output, text, force)
    print_line(f"wrote {output} ({output_format}, bench {result.bench_id})", err=True)


def _plain_text(result: BenchReport) -> str:
    """The text tables as a file holds them: no colour, no terminal width."""
    import io

    from rich.console import Console

    from mixseek.cli.bench_text import print_report
    from mixseek.cli.safe_console import SafeConsole

    console: Console = SafeConsole(record=True, width=200, no_color=True, file=io.StringIO())
    print_report(console, result)
    return console.export_text()
