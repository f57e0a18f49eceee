"""Running a bench: each (task, repeat) an execution whose id is stored first, so a stopped bench resumes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from mixseek.api.mixseek import Mixseek
from mixseek.errors import InputError
from mixseek.orchestrator.events import TeamRoundFinished
from mixseek.orchestrator.models import ExecutionSummary
from mixseek.orchestrator.orchestrator import RESUMABLE_STATUSES, new_execution_id
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.bench_store import BenchRecord, BenchStore
from mixseek.storage.models import ExecutionStatus
from mixseek.tasksets.tasks import BenchTask, TaskSet

Action = Literal["start", "resume", "round_failed", "done"]

FAILED_ROUND_STATUSES = frozenset({"failed", "timeout"})  # a round cut by the budget is not the team's


@dataclass(frozen=True)
class RunStep:
    """One (task, repeat) of a bench as the runner reaches it, and once ended how it ended."""

    position: int
    total: int
    task_id: str
    repeat_number: int
    execution_id: str
    action: Action
    status: ExecutionStatus | None = None
    failure: TeamRoundFinished | None = None  # with "round_failed": the team round that failed


Progress = Callable[[RunStep], None]


def plan(tasks: TaskSet, repeats: int) -> list[tuple[BenchTask, int]]:
    """The order the pairs run in: whole passes over the tasks, one repeat after another."""
    return [(task, repeat) for repeat in range(1, repeats + 1) for task in tasks.tasks]


async def open_bench(
    store: AggregationStore, tasks: TaskSet, *, repeats: int | None, resume: str | None
) -> BenchRecord:
    """The bench to run: a new one, or the stored `resume` one (same file SHA-256; `repeats` may grow)."""
    benches = BenchStore(store)
    if resume is None:
        bench_id = f"bench-{new_execution_id()}"
        await benches.create_bench(bench_id, str(tasks.path), tasks.sha256, len(tasks.tasks), repeats or 1)
        found = await benches.get_bench(bench_id)
        assert found is not None
        return found
    record = await stored_bench(store, tasks, resume, "--resume")
    if repeats is not None and repeats < record.repeats:
        raise InputError(
            f"--repeat: bench {resume} already runs {record.repeats} repeat(s); give {record.repeats} or "
            "more, or leave --repeat out"
        )
    if repeats is not None and repeats > record.repeats:  # more repeats: only the new pairs will run
        await benches.set_repeats(resume, repeats)
        record = replace(record, repeats=repeats)
    return record


async def stored_bench(store: AggregationStore, tasks: TaskSet, bench_id: str, option: str) -> BenchRecord:
    """The stored bench `bench_id`, refused (naming `option`) unless it ran this task file's content."""
    record = await BenchStore(store).get_bench(bench_id)
    if record is None:
        raise InputError(f"{option}: no bench {bench_id!r} in {store.location}")
    if record.tasks_sha256 != tasks.sha256:
        ran = f"({record.tasks_file}, sha256 {record.tasks_sha256[:12]}…)"
        if option == "--baseline":
            raise InputError(
                f"--baseline: bench {bench_id} ran other tasks {ran}; compare benches of one task file"
            )
        raise InputError(
            f"{tasks.path}: not the task file bench {bench_id} ran {ran}; resume it with that file unchanged"
        )
    return record


async def run_bench(
    mixseek: Mixseek, store: AggregationStore, bench: BenchRecord, tasks: TaskSet, progress: Progress
) -> None:
    """Run what `bench` still misses, one execution at a time; the bench goes on past a failed one."""
    benches = BenchStore(store)
    known = {(run.task_id, run.repeat_number): run for run in await benches.get_runs(bench.bench_id)}
    steps = plan(tasks, bench.repeats)
    for position, (task, repeat) in enumerate(steps, start=1):
        run = known.get((task.task_id, repeat))
        execution_id = run.execution_id if run is not None else new_execution_id()
        record = await store.get_execution(execution_id) if run is not None else None
        step = RunStep(position, len(steps), task.task_id, repeat, execution_id, "start")
        if record is not None and record.status not in RESUMABLE_STATUSES:
            if run is not None and run.status != record.status:
                await benches.record_run(bench.bench_id, task.task_id, repeat, execution_id, record.status)
            progress(replace(step, action="done", status=record.status))
            continue
        if record is None:
            # the id first: interrupted from here on, the bench resumes this execution
            await benches.record_run(bench.bench_id, task.task_id, repeat, execution_id, "running")
            progress(step)
        else:
            progress(replace(step, action="resume"))
        summary = await _execute(mixseek, task, step, progress, resume=record is not None)
        await benches.record_run(bench.bench_id, task.task_id, repeat, execution_id, summary.status)
        progress(replace(step, action="done", status=summary.status))


async def _execute(
    mixseek: Mixseek, task: BenchTask, step: RunStep, progress: Progress, *, resume: bool
) -> ExecutionSummary:
    """Run (or resume) the execution of `step` to its end, telling `progress` each failed team round."""
    if resume:
        iteration = mixseek.iter(resume=step.execution_id)
    else:
        iteration = mixseek.iter(task.prompt, execution_id=step.execution_id, reference=task.reference)
    async with iteration as execution:
        async for event in execution:
            if isinstance(event, TeamRoundFinished) and event.status in FAILED_ROUND_STATUSES:
                progress(replace(step, action="round_failed", failure=event))
    return execution.result
