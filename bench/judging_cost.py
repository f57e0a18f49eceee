"""Benchmark: what each judging feature of issue #14 costs in model calls and wall time, for 8 and
64 teams, against one plain execution of the same teams.

Every model is simulated (`bench/_sim.py`: fixed latency, default 0, so the wall time is
mixseek's own work plus the latency given). Each feature is one `Feature` row: a name and a
function that runs it on a fresh workspace of N teams and returns its `Measurement` (model
calls by role, wall time, and the part of the wall time spent outside the executions). The
rows measured today:

- `exec`: one execution, 1 round, 1 metric — the baseline every other row is compared with;
- `bench TxR`: `mixseek bench` over T tasks × R repeats (the runner and report the command
  uses). It adds no model call of its own: it runs T·R ordinary executions, so its calls are
  T·R times the baseline's; `overhead s` is the bench wall time outside the executions' own
  recorded durations: building each execution's models, the bench's rows, reading the results
  back and the report.

- `panel k=1`, `panel k=3`: the baseline's one metric scored by a judge panel of k models
  (aggregate mean); each judge is one more model call per team and round, made concurrently;
- `deterministic+3`: the baseline's metric plus `length`, `patterns` and `json_schema`, which
  call no model: their cost is wall time only.

- `pairwise swiss`, `pairwise top-8`: the baseline plus the pairwise final stage (Swiss rounds
  until ceil(log2 T) rounds; round robin among the 8 best), each comparison two calls (both
  orders) of a simulated judge that always prefers the first position (so every pair ties).

Prints a table, then one JSON line:

    {"bench": "judging_cost", "latency_s": 0.0, "results": [{"feature": "exec", "teams": 8,
     "model_calls": {"leader": 8, ...}, "calls": 24, "extra_calls": 0, "wall_s": ...,
     "overhead_s": ...}, ...]}

Run: python bench/judging_cost.py [--teams 8 64] [--tasks 3] [--repeats 2] [--latency 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _sim import MODEL_STRINGS, Call, SimWorld, write_workspace
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.api.mixseek import Mixseek
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.tasksets.report import build_report
from mixseek.tasksets.results import collect
from mixseek.tasksets.runner import RunStep, open_bench, run_bench
from mixseek.tasksets.tasks import load_tasks

PROMPT = "Propose three measures against rising cloud costs."


@dataclass(frozen=True)
class Setup:
    """What every row runs with: the size of the bench and the simulated latency."""

    tasks: int
    repeats: int
    latency: float


@dataclass(frozen=True)
class Measurement:
    calls: Counter[str]
    wall_s: float
    overhead_s: float = 0.0


@dataclass(frozen=True)
class Feature:
    """One row: `run(workspace root, teams, setup)` runs the feature once and measures it."""

    name: Callable[[Setup], str]
    run: Callable[[Path, int, Setup], Measurement]


def _workspace(root: Path, teams: int) -> Mixseek:
    write_workspace(
        root,
        teams=teams,
        rounds=1,
        members=0,
        metrics=1,
        max_concurrent_teams=teams,
        max_concurrent_requests_per_model=teams,
    )
    return Mixseek.from_config(load_execution_config(Workspace(root), None))


def _calls(world: SimWorld) -> Counter[str]:
    return Counter(call.role for call in world.calls)


def run_exec(root: Path, teams: int, setup: Setup) -> Measurement:
    mixseek = _workspace(root, teams)
    world = SimWorld(latency=setup.latency)
    with override_models(world.models()):
        start = time.perf_counter()
        mixseek.run_sync(PROMPT)
        wall = time.perf_counter() - start
    return Measurement(_calls(world), wall)


def run_bench_feature(root: Path, teams: int, setup: Setup) -> Measurement:
    mixseek = _workspace(root, teams)
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_text(
        "".join(
            json.dumps({"id": f"t{i}", "prompt": f"{PROMPT} (variant {i})"}) + "\n"
            for i in range(setup.tasks)
        ),
        encoding="utf-8",
    )
    world = SimWorld(latency=setup.latency)
    tasks = load_tasks(tasks_file)
    store = AggregationStore(Workspace(root).db_path)

    async def whole() -> float:
        executions: list[str] = []

        def progress(step: RunStep) -> None:
            if step.action == "done":
                executions.append(step.execution_id)

        bench = await open_bench(store, tasks, repeats=setup.repeats, resume=None)
        await run_bench(mixseek, store, bench, tasks, progress)
        outcomes, missing, names = await collect(store, bench, tasks)
        build_report(bench.bench_id, tasks, bench.repeats, names, outcomes, missing)
        spent = 0.0
        for execution_id in executions:
            view = await store.get_execution_view(execution_id)
            spent += view.duration_seconds if view is not None else 0.0
        await store.aclose()
        return spent

    with override_models(world.models()):
        start = time.perf_counter()
        in_executions = asyncio.run(whole())
        wall = time.perf_counter() - start
    return Measurement(_calls(world), wall, max(0.0, wall - in_executions))


def _judges(k: int) -> list[str]:
    return [f"sim:judge-{i}" for i in range(1, k + 1)]


def _evaluator_run(evaluator: str, judges: list[str]) -> Callable[[Path, int, Setup], Measurement]:
    """A row that runs the baseline execution with `evaluator` as configs/evaluator.toml; each of
    `judges` (model strings) answers as the simulated metric model and is counted as a `metric` call."""

    def run(root: Path, teams: int, setup: Setup) -> Measurement:
        _workspace(root, teams)
        (root / "configs" / "evaluator.toml").write_text(evaluator, encoding="utf-8")
        mixseek = Mixseek.from_config(load_execution_config(Workspace(root), None))
        world = SimWorld(latency=setup.latency)
        models = world.models()
        models.update({judge: models[MODEL_STRINGS["metric"]] for judge in judges})
        with override_models(models):
            start = time.perf_counter()
            mixseek.run_sync(PROMPT)
            wall = time.perf_counter() - start
        return Measurement(_calls(world), wall)

    return run


def panel_feature(k: int) -> Feature:
    """The baseline's one metric scored by a panel of k judges (mean): k calls where it made 1."""
    judges = _judges(k)
    evaluator = (
        f'[evaluator]\nmodel = "{MODEL_STRINGS["metric"]}"\n\n[[evaluator.metrics]]\n'
        f'name = "clarity_coherence"\nmodels = {json.dumps(judges)}\naggregate = "mean"\n'
    )
    return Feature(lambda setup: f"panel k={k}", _evaluator_run(evaluator, judges))


DETERMINISTIC = f"""[evaluator]
model = "{MODEL_STRINGS["metric"]}"

[[evaluator.metrics]]
name = "clarity_coherence"

[[evaluator.metrics]]
name = "length"
min_chars = 20
max_chars = 4000

[[evaluator.metrics]]
name = "patterns"
required_patterns = ["answer"]
forbidden_patterns = ["(?i)as an ai"]

[[evaluator.metrics]]
name = "json_schema"
json_schema = {{type = "object"}}
"""
"""The baseline's LLM metric plus three deterministic ones (no model call each)."""

PAIRWISE_JUDGE = "sim:pairwise"


def _pairwise_judge(world: SimWorld, latency: float) -> FunctionModel:
    """Prefers whichever answer it reads first; its calls join the world's count as `pairwise`."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        start = time.perf_counter()
        await asyncio.sleep(latency)
        world.calls.append(Call("pairwise", None, None, start, time.perf_counter()))
        args = {"winner": "A", "reasoning": "the first answer"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    return FunctionModel(respond, model_name="sim-pairwise")


def pairwise_feature(name: str, settings: str) -> Feature:
    """The baseline execution followed by the pairwise final stage with `settings` (TOML lines)."""

    def run(root: Path, teams: int, setup: Setup) -> Measurement:
        _workspace(root, teams)
        (root / "configs" / "pairwise.toml").write_text(
            f'[pairwise]\nenabled = true\nmodel = "{PAIRWISE_JUDGE}"\nbootstrap_samples = 200\n{settings}',
            encoding="utf-8",
        )
        mixseek = Mixseek.from_config(load_execution_config(Workspace(root), None))
        world = SimWorld(latency=setup.latency)
        models = world.models()
        models[PAIRWISE_JUDGE] = _pairwise_judge(world, setup.latency)
        with override_models(models):
            start = time.perf_counter()
            mixseek.run_sync(PROMPT)
            wall = time.perf_counter() - start
        return Measurement(_calls(world), wall)

    return Feature(lambda setup: name, run)


FEATURES: list[Feature] = [
    Feature(lambda setup: "exec", run_exec),
    Feature(lambda setup: f"bench {setup.tasks}x{setup.repeats}", run_bench_feature),
    panel_feature(1),
    panel_feature(3),
    Feature(lambda setup: "deterministic+3", _evaluator_run(DETERMINISTIC, [])),
    pairwise_feature("pairwise swiss", 'schedule = "swiss"\n'),
    pairwise_feature("pairwise top-8", 'schedule = "top_k"\ntop_k = 8\n'),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--teams", type=int, nargs="+", default=[8, 64], help="team counts to measure")
    parser.add_argument("--tasks", type=int, default=3, help="tasks of the bench row")
    parser.add_argument("--repeats", type=int, default=2, help="repeats of the bench row")
    parser.add_argument("--latency", type=float, default=0.0, help="simulated seconds per model call")
    args = parser.parse_args(argv)
    setup = Setup(args.tasks, args.repeats, args.latency)
    results = []
    header = f"{'feature':<16} {'teams':>5} {'calls':>7} {'extra':>7} {'wall s':>8} {'overhead s':>10}"
    print(f"{header}  calls by role")
    for teams in args.teams:
        baseline = 0
        for feature in FEATURES:
            with tempfile.TemporaryDirectory(prefix="mixseek-judging-cost-") as tmp:
                measured = feature.run(Path(tmp) / "ws", teams, setup)
            calls = sum(measured.calls.values())
            baseline = baseline or calls  # the first row (exec) is the baseline
            row = {
                "feature": feature.name(setup),
                "teams": teams,
                "model_calls": dict(sorted(measured.calls.items())),
                "calls": calls,
                "extra_calls": calls - baseline,
                "wall_s": round(measured.wall_s, 3),
                "overhead_s": round(measured.overhead_s, 3),
            }
            results.append(row)
            roles = ", ".join(f"{role} {n}" for role, n in row["model_calls"].items())
            print(
                f"{row['feature']:<16} {teams:>5} {calls:>7} {row['extra_calls']:>7} "
                f"{row['wall_s']:>8.2f} {row['overhead_s']:>10.2f}  {roles}"
            )
    print(json.dumps({"bench": "judging_cost", "latency_s": args.latency, "results": results}))


if __name__ == "__main__":
    main()
