"""Reading a bench's ended executions back from the store, as the report's `RunOutcome`s."""

from __future__ import annotations

from mixseek.orchestrator.orchestrator import RESUMABLE_STATUSES
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.bench_store import BenchRecord, BenchStore
from mixseek.storage.models import ExecutionRecord
from mixseek.storage.pairwise_views import PairwiseView
from mixseek.storage.views import BestSubmission
from mixseek.tasksets.report import Answer, RunOutcome
from mixseek.tasksets.runner import plan
from mixseek.tasksets.tasks import TaskSet


async def collect(
    store: AggregationStore, bench: BenchRecord, tasks: TaskSet
) -> tuple[list[RunOutcome], int, dict[str, str]]:
    """The ended runs of `bench` in plan order, how many are missing, and every team's name met."""
    benches = BenchStore(store)
    runs = {(r.task_id, r.repeat_number): r for r in await benches.get_runs(bench.bench_id)}
    outcomes: list[RunOutcome] = []
    names: dict[str, str] = {}
    missing = 0
    for task, repeat in plan(tasks, bench.repeats):
        run = runs.get((task.task_id, repeat))
        record = await store.get_execution(run.execution_id) if run is not None else None
        if run is None or record is None or record.status in RESUMABLE_STATUSES:
            missing += 1
            continue
        ranking = await store.get_ranking(run.execution_id)
        best = BestSubmission.from_board(ranking, await store.get_leader_board(run.execution_id))
        names.update({entry.team_id: entry.team_name for entry in ranking})
        judged = await _pairwise(store, record)
        usage = await benches.team_costs(run.execution_id)
        outcomes.append(
            RunOutcome(
                task.task_id,
                repeat,
                run.execution_id,
                record.status,
                {entry.team_id: entry.max_score for entry in ranking},
                Answer(best.team_id, best.score, best.content) if best is not None else None,
                degraded=bool((record.summary or {}).get("degraded_reasons")),
                judge=(judged.model, judged.bias) if judged is not None and judged.bias is not None else None,
                costs={team: cost for team, (cost, _) in usage.items()},
                seconds={team: seconds for team, (_, seconds) in usage.items() if seconds is not None},
            )
        )
    return outcomes, missing, names


async def _pairwise(store: AggregationStore, record: ExecutionRecord) -> PairwiseView | None:
    """The execution's pairwise stage, whose judge's bias the report pools; None without one."""
    if "pairwise" not in (record.summary or {}):
        return None
    view = await store.get_execution_view(record.execution_id)
    return view.pairwise if view is not None else None
