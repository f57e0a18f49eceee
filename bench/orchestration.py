"""Benchmark: orchestration overhead of whole executions with fixed-latency simulated models.

Runs real executions through `Orchestrator` (temp workspace, temp DuckDB file,
the JSONL event log `mixseek exec` writes) with T teams x R rounds x M members
x E metrics. Every model call is a pydantic-ai `FunctionModel` that sleeps L
seconds (`bench/_sim.py`). Each leader asks all M members in one response
(parallel tool calls), then answers; each metric returns a structured score;
judgment always says continue (min_rounds=1, judge_on_final_round=false, so
the last round has no judgment call and every team plays all R rounds).

Critical-path lower bound per round: leader call + member calls (parallel) +
leader call + metric calls (parallel) + judgment call (not in the last round):

    lower_bound = R x 4 x L + (R - 1) x L

The ratio wall / lower_bound is the orchestration overhead (issue 4 targets:
<= 1.05 at T=8, <= 1.15 at T=64). Each T runs in a fresh subprocess, so the
peak RSS is per configuration. Orchestrator settings let every team run at
once: max_concurrent_teams = T, max_concurrent_requests_per_model = 1024.

Each T also runs once more through bare pydantic-ai agents (`bench/_bare.py`:
the same calls, the same latency, lock-step rounds, nothing else): the ratio
no single-process orchestration on pydantic-ai can beat on this machine.
pydantic-ai 2.x spends 4-6 ms of CPU per agent run here, and with T teams the
runs of one phase all become ready at once, so the bare ratio grows with T.
`bare/Np` shares the bare workload's teams out over N processes running at
once (default: one per CPU): the best that running teams in worker processes
could give on this machine.

Besides the main table it prints where the time between model calls went
(per phase: mean / max over all team rounds), the critical path per round,
and every store operation's count and awaited time, and the time spent on
the connection by reads and by write transactions (the store instance is
wrapped, not changed). Then one JSON line:

    {"bench": "orchestration", "results": [...], "targets": {...}}

Run: python bench/orchestration.py [--teams 1,8,64] [--rounds 3] [--members 2] [--metrics 3]
         [--latency 0.1] [--repeat 1] [--sink jsonl|none] [--profile DIR]
         [--idle-close SECONDS] [--threads N] [--no-bare] [--bare-processes N]

--repeat N runs each T N times (fresh processes) and reports the median run;
--idle-close and --threads are what-if knobs (the store's idle_close_seconds,
the size of asyncio's default executor used by `asyncio.to_thread`);
--profile DIR writes cProfile stats of each run (the event loop thread only).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import dataclasses
import inspect
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _bare import run_bare
from _cluster import DevServer, Workers, concurrency_for, peak_rss_mb, thread_cpu
from _sim import Call, SimWorld, write_workspace

from mixseek.cli.entry import leave
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.orchestrator.events import Event, EventSink, JsonlFileSink
from mixseek.orchestrator.orchestrator import Orchestrator
from mixseek.storage.aggregation_store import WRITER_IDLE_CLOSE_SECONDS, AggregationStore

TARGETS = {"8": 1.05, "64": 1.15}
AIM_WALL_VS_LOCAL = 0.6  # issue 13: temporal with 2 workers at T=64, L=0.1 s, against local
AIM_TEMPORAL_MS = 20.0  # issue 13: Temporal's own CPU per team round (server + client + workers)
MAX_CONCURRENT_REQUESTS_PER_MODEL = 1024
PROMPT = "Write a short plan for a benchmark of an LLM team framework."
RESULT_MARK = "@@result "


def own_peak_rss_mb() -> float:
    """This process's peak resident set so far, in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def lower_bound(rounds: int, latency: float) -> float:
    return rounds * 4 * latency + (rounds - 1) * latency


def expected_calls(teams: int, rounds: int, members: int, metrics: int) -> int:
    return teams * (rounds * (2 + members + metrics) + (rounds - 1))


class EventTrace:
    """A sink that stamps each event with `time.perf_counter()` (the clock the models use)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str | None, int | None, float]] = []

    def __call__(self, event: Event) -> None:
        self.events.append(
            (
                event.kind,
                getattr(event, "team_id", None),
                getattr(event, "round_number", None),
                time.perf_counter(),
            )
        )


class StoreProbe:
    """Times every store operation (awaited, incl. queueing), every visit to the connection
    (SQL time of reads and of write transactions, which may hold several batched writes)
    and every open and close. Wraps one store instance; behaviour is unchanged."""

    def __init__(self, store: AggregationStore) -> None:
        self.ops: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self.visits: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self.opens = [0, 0.0]
        self.closes = [0, 0.0]
        connector = getattr(store, "_connector", None)
        needed = ((connector, "run"), (connector, "_open"), (connector, "_close_locked"))
        if not all(hasattr(owner, name) for owner, name in needed):
            return  # the store's internals changed: report nothing rather than fail
        for name in dir(AggregationStore):
            if not name.startswith("_") and inspect.iscoroutinefunction(getattr(AggregationStore, name)):
                setattr(store, name, self._timed_op(name, getattr(store, name)))
        run = connector.run

        def timed_run(work: Callable[[Any], Any], *, transaction: bool) -> Any:
            tally = self.visits["write transaction" if transaction else "read"]
            t = time.perf_counter()
            try:
                return run(work, transaction=transaction)
            finally:
                tally[0] += 1
                tally[1] += time.perf_counter() - t

        connector.run = timed_run  # type: ignore[method-assign]
        connector._open = self._timed(connector._open, self.opens)  # type: ignore[method-assign]
        connector._close_locked = self._timed(connector._close_locked, self.closes)  # type: ignore[method-assign]

    def _timed_op(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        entry = self.ops[name]

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return await method(*args, **kwargs)
            finally:
                entry[0] += 1
                entry[1] += time.perf_counter() - t

        return wrapper

    @staticmethod
    def _timed(fn: Callable[..., Any], tally: list[Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                tally[0] += 1
                tally[1] += time.perf_counter() - t

        return wrapper

    def report(self) -> dict[str, Any]:
        def entries(tallies: dict[str, list[float]]) -> dict[str, Any]:
            ordered = sorted(tallies.items(), key=lambda kv: -kv[1][1])
            return {name: {"n": int(n), "ms": round(ms * 1000, 1)} for name, (n, ms) in ordered if n}

        return {
            "ops": entries(self.ops),
            "visits": entries(self.visits),
            "opens": {"n": self.opens[0], "ms": round(self.opens[1] * 1000, 1)},
            "closes": {"n": self.closes[0], "ms": round(self.closes[1] * 1000, 1)},
        }


# -- the child: one configuration ------------------------------------------------


def _phases(
    model_calls: list[Call],
    latency: float,
    events: list[tuple[str, str | None, int | None, float]],
    started: float,
    ended: float,
    rounds: int,
) -> dict[str, Any]:
    """Milliseconds between model calls, per phase (mean and max over team rounds) and per round.

    Model calls and events may come from different processes: both are on `time.perf_counter`,
    CLOCK_MONOTONIC on Linux, one clock for the whole machine."""
    calls: dict[tuple[str, int], dict[str, list[tuple[float, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for call in model_calls:
        if call.team_id is not None and call.round_number is not None:
            calls[(call.team_id, call.round_number)][call.role].append((call.start, call.end))
    at: dict[tuple[str, str | None, int | None], float] = {}
    for kind, team, round_number, t in events:
        at.setdefault((kind, team, round_number), t)

    latest: dict[tuple[str, int], float] = {}
    for kind, _, round_number, t in events:
        if round_number is not None:
            latest[(kind, round_number)] = max(t, latest.get((kind, round_number), t))

    def last(kind: str, r: int) -> float:
        return latest[(kind, r)]

    per_phase: dict[str, list[float]] = defaultdict(list)
    for (team, r), roles in calls.items():
        leader = sorted(roles["leader"])
        members, metrics = roles["member"], roles["metric"]
        begun = at.get(("team_round_started", team, r))
        finished = at.get(("team_round_finished", team, r))
        if begun is None or finished is None or len(leader) != 2:
            continue
        per_phase["slot_wait"].append(begun - at[("round_started", None, r)])
        per_phase["to_leader"].append(leader[0][0] - begun)
        per_phase["to_members"].append(max(s for s, _ in members) - leader[0][1])
        per_phase["members_to_leader"].append(leader[1][0] - max(e for _, e in members))
        per_phase["to_metrics"].append(max(s for s, _ in metrics) - leader[1][1])
        per_phase["metrics_to_saved"].append(finished - max(e for _, e in metrics))
        for judged in roles["judgment"]:
            per_phase["barrier_to_judgment"].append(judged[0] - last("team_round_finished", r))
            decided = at.get(("team_decided", team, r))
            if decided is not None:
                per_phase["judgment_to_decided"].append(decided - judged[1])
    stretch = [c.end - c.start - latency for c in model_calls]

    per_round = []
    for r in range(1, rounds + 1):
        begin = at[("round_started", None, r)]
        played, decided = last("team_round_finished", r), last("team_decided", r)
        nxt = at.get(("round_started", None, r + 1), ended)
        per_round.append(
            {
                "round": r,
                "play_overhead_ms": round((played - begin - 4 * latency) * 1000, 1),
                "decide_overhead_ms": round((decided - played - (latency if r < rounds else 0)) * 1000, 1),
                "after_ms": round((nxt - decided) * 1000, 1),
            }
        )
    return {
        "startup_ms": round((at[("round_started", None, 1)] - started) * 1000, 1),
        "per_round": per_round,
        "phases_ms": {
            name: {"mean": round(statistics.fmean(v) * 1000, 1), "max": round(max(v) * 1000, 1)}
            for name, v in per_phase.items()
            if v
        },
        "call_stretch_ms": {
            "mean": round(statistics.fmean(stretch) * 1000, 2),
            "max": round(max(stretch) * 1000, 2),
        },
    }


async def _run(orchestrator: Orchestrator, threads: int | None) -> Any:
    if threads:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(threads))
    return await orchestrator.run(PROMPT)


def settings_for(teams: int) -> dict[str, int]:
    """Orchestrator settings that let every team run at once."""
    return {
        "max_concurrent_teams": min(max(teams, 1), 256),
        "max_concurrent_requests_per_model": MAX_CONCURRENT_REQUESTS_PER_MODEL,
    }


@contextlib.contextmanager
def _workspace(args: argparse.Namespace) -> Iterator[tuple[Path, Path]]:
    """(root, orchestrator.toml): the one the parent wrote for its workers, else a fresh one."""
    if args.workspace:
        root = Path(args.workspace)
        yield root, root / "configs" / "orchestrator.toml"
        return
    with tempfile.TemporaryDirectory(prefix="mixseek-bench-") as tmp:
        root = Path(tmp)
        yield (
            root,
            write_workspace(
                root,
                teams=args.teams_one,
                rounds=args.rounds,
                members=args.members,
                metrics=args.metrics,
                **settings_for(args.teams_one),
            ),
        )


def _cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """User + system CPU so far of other processes (the dev server, workers), by name."""
    import psutil

    seconds = {}
    for name, pid in pids.items():
        times = psutil.Process(pid).cpu_times()
        seconds[name] = times.user + times.system
    return seconds


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    teams, rounds, latency = args.teams_one, args.rounds, args.latency
    settings = settings_for(teams)
    extra = {
        "store_idle_close_seconds": args.idle_close,
        "to_thread_workers": args.threads or min(32, (os.cpu_count() or 1) + 4),
    }
    watched = dict(item.split("=", 1) for item in args.watch.split(",")) if args.watch else {}
    pids = {name: int(pid) for name, pid in watched.items()}
    with _workspace(args) as (root, orchestrator_file):
        world = SimWorld(latency)
        trace = EventTrace()
        sinks: list[EventSink] = [trace]
        if args.sink == "jsonl":
            sinks.append(JsonlFileSink(root / "logs" / "bench.jsonl"))
        with override_models(world.models()):
            config = load_execution_config(Workspace(root), orchestrator_file)
            store = AggregationStore(config.workspace.db_path, idle_close_seconds=args.idle_close)
            probe = StoreProbe(store)
            if args.address:
                from mixseek.orchestrator.temporal.client import TemporalOrchestrator

                orchestrator: Orchestrator = TemporalOrchestrator(config, address=args.address, sinks=sinks)
                orchestrator.store = store  # the probed one (the orchestrator opens its store lazily)
            else:
                orchestrator = Orchestrator(config, store=store, sinks=sinks)
        profiler = cProfile.Profile(time.thread_time) if args.profile else None  # CPU, not waits
        others_started = _cpu_seconds(pids)
        threads_started = {name: thread_cpu(pid) for name, pid in {"exec": os.getpid(), **pids}.items()}
        started, cpu_started, loop_cpu_started = time.perf_counter(), time.process_time(), time.thread_time()
        if profiler is not None:
            profiler.enable()
        summary = asyncio.run(_run(orchestrator, args.threads))
        if profiler is not None:
            profiler.disable()
        ended, cpu, loop_cpu = time.perf_counter(), time.process_time(), time.thread_time()
        others = {name: round(t - others_started[name], 3) for name, t in _cpu_seconds(pids).items()}
        threads = {
            name: {
                thread: round(t - threads_started[name].get(thread, 0.0), 2)
                for thread, t in sorted(thread_cpu(pid).items(), key=lambda kv: -kv[1])
            }
            for name, pid in {"exec": os.getpid(), **pids}.items()
        }
        db_bytes = (root / "mixseek.db").stat().st_size
    wall = ended - started
    if profiler is not None:
        profiler.dump_stats(args.profile)
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
        print(text.getvalue(), file=sys.stderr)
    bound = lower_bound(rounds, latency)
    incomplete = [t.team_id for t in summary.teams if t.rounds_completed != rounds]
    if summary.status != "completed" or incomplete:
        raise SystemExit(f"execution {summary.status}; teams short of {rounds} rounds: {incomplete}")
    result: dict[str, Any] = {
        "teams": teams,
        "rounds": rounds,
        "members": args.members,
        "metrics": args.metrics,
        "latency_s": latency,
        "engine": "temporal" if args.address else "local",
        "wall_s": round(wall, 4),
        "lower_bound_s": round(bound, 4),
        "ratio": round(wall / bound, 4),
        "cpu_s": round(cpu - cpu_started, 3),
        "loop_thread_cpu_s": round(loop_cpu - loop_cpu_started, 3),
        "other_cpu_s": others,
        "thread_cpu_s": threads,
        "peak_rss_mb": own_peak_rss_mb(),
        "db_bytes": db_bytes,
        "settings": {**settings, **extra},
        "store": probe.report(),
    }
    if args.address:  # team rounds' calls were made in the workers: the parent puts them together
        # with the judgments' (made here, by the workflow's local activities)
        own = [dataclasses.asdict(call) for call in world.calls]
        result["trace"] = {"events": trace.events, "started": started, "ended": ended, "calls": own}
        result["history"] = asyncio.run(_history_size(args.address, summary.execution_id))
        return result
    expected = expected_calls(teams, rounds, args.members, args.metrics)
    if len(world.calls) != expected:
        raise SystemExit(f"{len(world.calls)} model calls, expected {expected}")
    result["model_calls"] = len(world.calls)
    result["breakdown"] = _phases(world.calls, latency, trace.events, started, ended, rounds)
    return result


async def _history_size(address: str, execution_id: str) -> dict[str, int]:
    """Events and bytes of the execution's workflow history, over all its runs (a run that grows
    long continues as a new one), and of its largest run: what Temporal's limits apply to (per
    workflow run: 51,200 events, 50 MB)."""
    from temporalio.client import Client

    from mixseek.orchestrator.temporal.messages import workflow_id
    from mixseek.orchestrator.temporal.sdk_runtime import sdk_runtime

    client = await Client.connect(address, runtime=sdk_runtime())
    wid = workflow_id(execution_id)
    sizes: list[tuple[int, int]] = []
    async for run in client.list_workflows(f"WorkflowId = '{wid}'"):
        history = await client.get_workflow_handle(wid, run_id=run.run_id).fetch_history()
        sizes.append((len(history.events), sum(event.ByteSize() for event in history.events)))
    return {
        "runs": len(sizes),
        "events": sum(events for events, _ in sizes),
        "bytes": sum(size for _, size in sizes),
        "largest_run_events": max((events for events, _ in sizes), default=0),
        "largest_run_bytes": max((size for _, size in sizes), default=0),
    }


def run_bare_child(args: argparse.Namespace) -> dict[str, Any]:
    """The same workload through bare pydantic-ai agents (`bench/_bare.py`): what pydantic-ai costs."""
    teams, rounds, latency = args.teams_one, args.rounds, args.latency
    world = SimWorld(latency)
    workload = run_bare(world, teams=teams, rounds=rounds, members=args.members, metrics=args.metrics)
    started, cpu_started = time.perf_counter(), time.process_time()
    asyncio.run(workload)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    expected = expected_calls(teams, rounds, args.members, args.metrics)
    if len(world.calls) != expected:
        raise SystemExit(f"bare run: {len(world.calls)} model calls, expected {expected}")
    bound = lower_bound(rounds, latency)
    return {
        "wall_s": round(wall, 4),
        "ratio": round(wall / bound, 4),
        "cpu_s": round(cpu, 3),
        "peak_rss_mb": own_peak_rss_mb(),
    }


# -- the parent: one subprocess per T ---------------------------------------------


def _command(
    args: argparse.Namespace, teams: int, *, bare: bool, extra: list[str] | None = None
) -> list[str]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        "--teams",
        str(teams),
        "--rounds",
        str(args.rounds),
        "--members",
        str(args.members),
        "--metrics",
        str(args.metrics),
        "--latency",
        str(args.latency),
        "--sink",
        args.sink,
        "--idle-close",
        str(args.idle_close),
        "--threads",
        str(args.threads),
        *(extra or []),
    ]
    if bare:
        command.append("--bare")
    elif args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        name = "local" if not extra else f"temporal{extra[extra.index('--workers') + 1]}"
        command += ["--profile", str(Path(args.profile) / f"orchestration-T{teams}-{name}.prof")]
    return command


def child_result(teams: int, returncode: int, stdout: str, stderr: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith(RESULT_MARK)]
    if returncode != 0 or not lines:
        sys.stderr.write(stderr)
        last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
        raise SystemExit(f"child for T={teams} failed (exit {returncode}): {last}")
    result: dict[str, Any] = json.loads(lines[-1][len(RESULT_MARK) :])
    return result


def spawn(args: argparse.Namespace, teams: int, *, bare: bool = False) -> dict[str, Any]:
    done = subprocess.run(_command(args, teams, bare=bare), capture_output=True, text=True, check=False)
    if args.profile and not bare:
        sys.stderr.write(done.stderr)
    result = child_result(teams, done.returncode, done.stdout, done.stderr)
    if not bare:
        result.update(workers=0, worker_cpu_s=[], server_cpu_s=0.0, worker_peak_rss_mb=[])
    return result


def spawn_temporal(args: argparse.Namespace, teams: int, workers: int, server: DevServer) -> dict[str, Any]:
    """One execution with the temporal engine: fresh workers on a fresh workspace, the shared server."""
    with tempfile.TemporaryDirectory(prefix="mixseek-bench-") as tmp:
        root = Path(tmp)
        write_workspace(
            root, teams=teams, rounds=args.rounds, members=args.members, metrics=args.metrics,
            **settings_for(teams),
        )  # fmt: skip
        concurrency = concurrency_for(teams, workers, args.concurrency)
        pool = Workers(root, server.address, count=workers, concurrency=concurrency, latency=args.latency)
        try:
            watch = {"server": server.pid} | {f"worker-{n}": pid for n, pid in enumerate(pool.pids, 1)}
            extra = ["--workspace", str(root), "--address", server.address, "--workers", str(workers)]
            extra += ["--watch", ",".join(f"{name}={pid}" for name, pid in watch.items())]
            command = _command(args, teams, bare=False, extra=extra)
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, check=False, timeout=args.run_timeout
                )
            except subprocess.TimeoutExpired:  # e.g. a workflow task failing over and over
                raise SystemExit(
                    f"temporal/{workers} at T={teams}: no result in {args.run_timeout:g} s; "
                    f"see the dev server's log in {server.state}"
                ) from None
            server_rss = peak_rss_mb(server.pid)
        finally:
            stopped = pool.stop()
    if args.profile:
        sys.stderr.write(done.stderr)
    result = child_result(teams, done.returncode, done.stdout, done.stderr)
    trace = result.pop("trace")
    in_exec = [Call(**call) for call in trace["calls"]]
    calls = [call for made in stopped["calls"] for call in made] + in_exec
    expected = expected_calls(teams, args.rounds, args.members, args.metrics)
    if len(calls) != expected:
        raise SystemExit(f"temporal/{workers}: {len(calls)} model calls, expected {expected}")
    events = [(kind, team, number, t) for kind, team, number, t in trace["events"]]
    others = result["other_cpu_s"]
    result.update(
        workers=workers,
        worker_concurrency=concurrency,
        model_calls=len(calls),
        calls_per_worker=[len(made) for made in stopped["calls"]],
        calls_in_exec=len(in_exec),
        worker_cpu_s=[others[f"worker-{n}"] for n in range(1, workers + 1)],
        worker_total_cpu_s=[round(t, 3) for t in stopped["cpu_total_s"]],
        worker_peak_rss_mb=[round(mb, 1) for mb in stopped["peak_rss_mb"]],
        server_cpu_s=others["server"],
        server_peak_rss_mb=round(server_rss, 1),
        breakdown=_phases(calls, args.latency, events, trace["started"], trace["ended"], args.rounds),
    )
    return result


def spawn_bare_split(args: argparse.Namespace, teams: int, processes: int) -> dict[str, Any]:
    """The bare workload with its teams shared out over `processes` processes running at once:
    what spreading teams over processes could give at best (no barrier between processes)."""
    shares = [teams // processes + (i < teams % processes) for i in range(processes)]
    children = [
        subprocess.Popen(
            _command(args, share, bare=True), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for share in shares
        if share
    ]
    walls, cpus = [], []
    for share, child in zip(shares, children, strict=False):
        out, err = child.communicate()
        done = child_result(share, child.returncode, out, err)
        walls.append(done["wall_s"])
        cpus.append(done["cpu_s"])
    wall = max(walls)
    ratio = round(wall / lower_bound(args.rounds, args.latency), 4)
    return {"processes": len(children), "wall_s": wall, "ratio": ratio, "cpu_s": round(sum(cpus), 3)}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    runs = sorted(runs, key=lambda r: r["wall_s"])
    result = runs[len(runs) // 2]
    result["repeat"] = len(runs)
    result["ratio_range"] = [runs[0]["ratio"], runs[-1]["ratio"]]
    return result


def median_run(
    args: argparse.Namespace, teams: int, engine: str, workers: int, server: DevServer | None
) -> dict[str, Any]:
    """`--repeat` fresh runs of one configuration; the one with the median wall time, plus the spread."""
    if engine == "temporal":
        assert server is not None
        return _median([spawn_temporal(args, teams, workers, server) for _ in range(args.repeat)])
    result = _median([spawn(args, teams) for _ in range(args.repeat)])
    if not args.no_bare:
        bare = sorted((spawn(args, teams, bare=True) for _ in range(args.repeat)), key=lambda r: r["wall_s"])
        result["bare"] = bare[len(bare) // 2]
        if args.bare_processes > 1 and teams > 1:
            split = sorted(
                (spawn_bare_split(args, teams, args.bare_processes) for _ in range(args.repeat)),
                key=lambda r: r["wall_s"],
            )
            result["bare_split"] = split[len(split) // 2]
    return result


def label(r: dict[str, Any]) -> str:
    return "local" if r["engine"] == "local" else f"temporal/{r['workers']}"


def total_cpu(r: dict[str, Any]) -> float:
    """CPU of every process over the run: exec (client), workers, dev server."""
    return float(r["cpu_s"] + sum(r["worker_cpu_s"]) + r["server_cpu_s"])


def add_comparisons(results: list[dict[str, Any]]) -> None:
    """Per temporal run: its wall time over the local one's and Temporal's own CPU per team round."""
    local = {r["teams"]: r for r in results if r["engine"] == "local"}
    for r in results:
        r["total_cpu_s"] = round(total_cpu(r), 3)
        r["cpu_per_request_ms"] = round(total_cpu(r) / r["model_calls"] * 1000, 2)
        base = local.get(r["teams"])
        if r["engine"] != "temporal" or base is None:
            continue
        r["wall_vs_local"] = round(r["wall_s"] / base["wall_s"], 3)
        team_rounds = r["teams"] * r["rounds"]
        r["temporal_cpu_per_team_round_ms"] = round((total_cpu(r) - total_cpu(base)) / team_rounds * 1000, 1)
        sharing = core_sharing(base)
        if sharing is not None:
            # the local engine's work as it costs in processes that share the cores, as the
            # temporal run's do: what is left is the distribution's own
            r["core_sharing"] = round(sharing, 3)
            net = (total_cpu(r) - total_cpu(base) * sharing) / team_rounds * 1000
            r["temporal_cpu_net_ms"] = round(net, 1)


def core_sharing(local: dict[str, Any]) -> float | None:
    """How much more CPU the bare workload took split over processes running at once than in one
    process, in the same bench run: the same calls and the same code, so the difference is only
    that processes sharing two cores run slower per instruction (caches, the scheduler)."""
    bare, split = local.get("bare"), local.get("bare_split")
    if not bare or not split or not bare.get("cpu_s") or "cpu_s" not in split:
        return None
    return float(split["cpu_s"]) / float(bare["cpu_s"])


def print_report(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    latency, rounds = args.latency, args.rounds
    bound = lower_bound(rounds, latency)
    print(
        f"orchestration: R={rounds} rounds, M={args.members} members, E={args.metrics} metrics, "
        f"L={latency * 1000:g} ms per model call, event sinks: trace + {args.sink}"
    )
    print(
        f"lower bound = R x 4 x L + (R-1) x L = {rounds} x 4 x {latency:g} + {rounds - 1} x {latency:g}"
        f" = {bound:.3f} s (leader, members in parallel, leader, metrics in parallel, judgment;"
        " no judgment in the last round)"
    )
    print(
        "settings: max_concurrent_teams = T, max_concurrent_requests_per_model = "
        f"{MAX_CONCURRENT_REQUESTS_PER_MODEL}, min_rounds = 1, judge_on_final_round = false, "
        f"max_concurrent_members = M; store idle_close_seconds = {args.idle_close:g}; asyncio.to_thread "
        f"workers = {args.threads or f'min(32, cpu+4) = {min(32, (os.cpu_count() or 1) + 4)}'}; "
        f"{os.cpu_count()} CPUs"
    )
    if any(r["engine"] == "temporal" for r in results):
        concurrency = "ceil(T / N)" if args.concurrency == 0 else str(args.concurrency)
        print(
            f"temporal: one dev server for the whole bench (headless, 127.0.0.1, state "
            f"{'in a SQLite file, as `mixseek exec` runs it' if args.server_db == 'file' else 'in memory'}); "
            f"N fresh `mixseek worker`s per run with --concurrency {concurrency}; the exec process is "
            "the client, runs the workflow and writes the store"
        )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average at the end (1, 5, 15 min): {load}")
    print()
    columns = ("T", "engine", "wall s", "bound s", "ratio", "runs: ratios", "target", "calls")
    split = args.bare_processes
    columns += ("vs local", "bare ratio", "bare CPU", f"bare/{split}p", f"{split}p CPU")
    widths = (4, 11, 8, 8, 7, 15, 7, 6, 9, 11, 9, 9, 7)
    header = " ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True))
    print(header)
    print("-" * len(header))
    for r in results:
        target = TARGETS.get(str(r["teams"])) if r["engine"] == "local" else None
        low, high = r["ratio_range"]
        cells = (
            r["teams"],
            label(r),
            f"{r['wall_s']:.3f}",
            f"{r['lower_bound_s']:.3f}",
            f"{r['ratio']:.3f}",
            f"{r['repeat']}: {low:.2f}-{high:.2f}",
            "" if target is None else f"{target:.2f}",
            r["model_calls"],
            f"{r['wall_vs_local']:.3f}" if "wall_vs_local" in r else "-",
            f"{r['bare']['ratio']:.3f}" if "bare" in r else "-",
            f"{r['bare']['cpu_s']:.2f}" if "bare" in r else "-",
            f"{r['bare_split']['ratio']:.3f}" if "bare_split" in r else "-",
            f"{r['bare_split']['cpu_s']:.2f}" if "bare_split" in r else "-",
        )
        mark = "" if target is None else ("  ok" if r["ratio"] <= target else "  MISS")
        print(" ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True)) + mark)
    if any("bare" in r for r in results):
        print(
            "bare: the same calls through plain pydantic-ai agents in one process, lock-step rounds,"
            " no store/prompts/events (bench/_bare.py): the floor of any single-process orchestration;"
        )
        print(
            f"bare/{args.bare_processes}p: the same with the teams shared out over {args.bare_processes}"
            " processes at once (no barrier between them): the best that spreading teams over processes"
            f" could give here; {args.bare_processes}p CPU: their CPU seconds together (the same work as"
            " bare CPU: what running it in processes that share the cores costs more)"
        )
    print()
    print_cpu(results)
    print()
    print("where the time between model calls went (ms; mean / max over team rounds):")
    names = sorted({name for r in results for name in r["breakdown"]["phases_ms"]}, key=_phase_order)
    width = 20
    header = f"{'phase':<22}" + "".join(
        f"{'T=' + str(r['teams']) + ' ' + label(r):>{width}}" for r in results
    )
    print(header)
    print("-" * len(header))
    for name in names:
        cells = []
        for r in results:
            p = r["breakdown"]["phases_ms"].get(name)
            cells.append(f"{p['mean']:>7.1f} /{p['max']:>7.1f}" if p else "-")
        print(f"{name:<22}" + "".join(f"{c:>{width}}" for c in cells))
    stretch = "".join(
        f"{s['mean']:>7.1f} /{s['max']:>7.1f}".rjust(width)
        for s in (r["breakdown"]["call_stretch_ms"] for r in results)
    )
    print(f"{'model call - L':<22}{stretch}")
    print()
    print("critical path per round (ms beyond the model latency on it):")
    for r in results:
        rounds_text = "; ".join(
            f"r{p['round']}: play +{p['play_overhead_ms']:.0f}, decide +{p['decide_overhead_ms']:.0f}, "
            f"then {p['after_ms']:.0f}"
            for p in r["breakdown"]["per_round"]
        )
        print(f"  T={r['teams']} {label(r)}: startup {r['breakdown']['startup_ms']:.0f}; {rounds_text}")


def _against_aim(ms: float | None) -> str:
    """Temporal's CPU per team round, marked against the issue's aim."""
    return "-" if ms is None else f"{ms:.1f}" + ("  ok" if ms <= AIM_TEMPORAL_MS else "  MISS")


def print_cpu(results: list[dict[str, Any]]) -> None:
    print(
        "CPU seconds over the run window, per process kind (exec = the client: workflow, store, events;"
        " local runs everything there), and peak RSS (MB):"
    )
    columns = ("T", "engine", "exec", "exec loop", "workers: each", "server", "total", "ms/req")
    columns += ("RSS exec", "RSS bare", "RSS wrk max", "RSS server")
    columns += ("Temporal ms/team-round", "net of sharing")
    widths = (4, 11, 7, 9, 22, 7, 7, 7, 9, 9, 11, 10, 23, 15)
    header = " ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True))
    print(header)
    print("-" * len(header))
    for r in results:
        each = r["worker_cpu_s"]
        worker_text = f"{sum(each):.2f}: " + "/".join(f"{t:.2f}" for t in each) if each else "-"
        cells = (
            r["teams"],
            label(r),
            f"{r['cpu_s']:.2f}",
            f"{r['loop_thread_cpu_s']:.2f}",
            worker_text,
            f"{r['server_cpu_s']:.2f}" if r["engine"] == "temporal" else "-",
            f"{r['total_cpu_s']:.2f}",
            f"{r['cpu_per_request_ms']:.2f}",
            f"{r['peak_rss_mb']:.0f}",
            f"{r['bare']['peak_rss_mb']:.0f}" if "bare" in r else "-",
            f"{max(r['worker_peak_rss_mb']):.0f}" if r["worker_peak_rss_mb"] else "-",
            f"{r['server_peak_rss_mb']:.0f}" if "server_peak_rss_mb" in r else "-",
            _against_aim(r.get("temporal_cpu_per_team_round_ms")),
            _against_aim(r.get("temporal_cpu_net_ms")),
        )
        print(" ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True)))
    print(
        "Temporal ms/team-round = (total CPU of the temporal run - total CPU of the local run at the same T)"
        f" / (T x R); aim <= {AIM_TEMPORAL_MS:g} ms. Net of sharing: the same, with the local run's CPU"
        " scaled by what the bare workload cost more split over processes that share the cores (bare/Np"
        " CPU / bare CPU, this run's; needs the bare runs). RSS bare: the bare pydantic-ai run's peak"
        " (the same calls, nothing else). RSS server: the dev server's peak over the whole bench."
    )
    histories = [r for r in results if r.get("history")]
    if histories:
        print("workflow history (Temporal's limits per workflow run: 51,200 events, 50 MB):")
        for r in histories:
            team_rounds = r["teams"] * r["rounds"]
            h = r["history"]
            events, size = h["events"], h["bytes"]
            print(
                f"  T={r['teams']} {label(r)}: {h['runs']} run(s), {events} events, {size / 1e6:.2f} MB "
                f"(largest run {h['largest_run_events']} events, {h['largest_run_bytes'] / 1e6:.2f} MB); "
                f"per team round {events / team_rounds:.1f} events, {size / team_rounds / 1e3:.1f} kB"
            )
    print("CPU by thread name over the run (s; exec, then the first worker):")
    for r in results:
        for name in ("exec", "worker-1"):
            threads = {t: s for t, s in r["thread_cpu_s"].get(name, {}).items() if s >= 0.01}
            if threads:
                text = ", ".join(f"{t} {s:.2f}" for t, s in threads.items())
                print(f"  T={r['teams']} {label(r)} {name}: {text}")
    spread = [
        f"T={r['teams']} {label(r)}: {r['calls_per_worker']}, exec {r.get('calls_in_exec', 0)}"
        for r in results
        if r.get("calls_per_worker")
    ]
    if spread:
        print("model calls per worker (and in the exec process, the judgments): " + "; ".join(spread))
    for r in results:
        if r["engine"] == "temporal" and r["teams"] == 64 and r["workers"] == 2 and "wall_vs_local" in r:
            ok = "ok" if r["wall_vs_local"] <= AIM_WALL_VS_LOCAL else "MISS"
            print(
                f"aim: temporal/2 at T=64 wall <= {AIM_WALL_VS_LOCAL:g} x local (L={r['latency_s']:g}):"
                f" {r['wall_vs_local']:.3f} {ok}"
            )


def print_store(results: list[dict[str, Any]]) -> None:
    print()
    print("store (count, total ms): operations as awaited (incl. queueing), then time on the connection")
    header = f"{'operation':<30}" + "".join(f"{'T=' + str(r['teams']) + ' ' + label(r):>20}" for r in results)
    print(header)
    print("-" * len(header))
    for section in ("ops", "visits"):
        names = sorted({n for r in results for n in r["store"][section]})
        for name in names:
            cells = [r["store"][section].get(name) for r in results]
            text = [f"{c['n']:>6} {c['ms']:>9.0f}" if c else "-" for c in cells]
            title = name if section == "ops" else f"SQL: {name}"
            print(f"{title:<30}" + "".join(f"{t:>20}" for t in text))
    for what in ("opens", "closes"):
        text = [f"{r['store'][what]['n']:>6} {r['store'][what]['ms']:>9.0f}" for r in results]
        print(f"{'connection ' + what:<30}" + "".join(f"{t:>20}" for t in text))


def _phase_order(name: str) -> int:
    order = [
        "slot_wait",
        "to_leader",
        "to_members",
        "members_to_leader",
        "to_metrics",
        "metrics_to_saved",
        "barrier_to_judgment",
        "judgment_to_decided",
    ]
    return order.index(name) if name in order else len(order)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--teams", default="1,8,64", help="comma-separated team counts (default 1,8,64)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--members", type=int, default=2)
    parser.add_argument("--metrics", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per model call")
    parser.add_argument("--sink", choices=("jsonl", "none"), default="jsonl", help="event log like exec")
    parser.add_argument(
        "--idle-close",
        type=float,
        default=WRITER_IDLE_CLOSE_SECONDS,
        help=f"store idle_close_seconds (default {WRITER_IDLE_CLOSE_SECONDS}, the store's default)",
    )
    parser.add_argument("--threads", type=int, default=0, help="asyncio default executor size (0: Python's)")
    parser.add_argument("--profile", help="directory (child: file) for cProfile stats of each run")
    parser.add_argument("--repeat", type=int, default=1, help="runs per T; the median run is reported")
    parser.add_argument(
        "--no-bare", action="store_true", help="skip the bare pydantic-ai run of each T (the floor)"
    )
    parser.add_argument(
        "--bare-processes",
        type=int,
        default=os.cpu_count() or 1,
        help="also run the bare workload shared out over this many processes (default: CPUs)",
    )
    parser.add_argument(
        "--engine", default="local", help="comma-separated engines: local, temporal (default local)"
    )
    parser.add_argument(
        "--workers", default="2", help="comma-separated worker counts for the temporal engine (default 2)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=0,
        help="each worker's --concurrency (default 0: ceil(T / workers), every team at once)",
    )
    parser.add_argument(
        "--server-db",
        choices=("file", "memory"),
        default="file",
        help="dev server state: a SQLite file as `mixseek exec` keeps it (default), or memory",
    )
    parser.add_argument(
        "--run-timeout", type=float, default=1200, help="seconds before a temporal run is given up"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--workspace", help=argparse.SUPPRESS)  # child: the parent's workspace
    parser.add_argument("--address", help=argparse.SUPPRESS)  # child: the temporal engine's server
    parser.add_argument("--watch", help=argparse.SUPPRESS)  # child: name=pid,... to measure CPU of
    args = parser.parse_args(argv)
    args.team_counts = [int(t) for t in str(args.teams).split(",") if t.strip()]
    args.engines = [e.strip() for e in str(args.engine).split(",") if e.strip()]
    args.worker_counts = [int(n) for n in str(args.workers).split(",") if n.strip()]
    if not args.engines or set(args.engines) - {"local", "temporal"}:
        parser.error("--engine: local and/or temporal")
    if not args.worker_counts or min(args.worker_counts) < 1 or args.concurrency < 0:
        parser.error("--workers: counts >= 1; --concurrency >= 0")
    if args.rounds < 1 or args.members < 1 or args.metrics < 1 or args.latency <= 0 or args.repeat < 1:
        parser.error("need --rounds >= 1, --members >= 1, --metrics >= 1, --latency > 0, --repeat >= 1")
    if not args.team_counts or min(args.team_counts) < 1 or max(args.team_counts) > 256:
        parser.error("--teams: counts between 1 and 256 (max_concurrent_teams allows at most 256)")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        args.teams_one = args.team_counts[0]
        result = run_bare_child(args) if args.bare else run_child(args)
        print(RESULT_MARK + json.dumps(result), flush=True)
        leave(0)  # as `mixseek` ends: a process that ran a Temporal client skips finalization
    configs = [
        (teams, engine, workers)
        for teams in args.team_counts
        for engine in args.engines
        for workers in (args.worker_counts if engine == "temporal" else [0])
    ]
    with contextlib.ExitStack() as stack:
        server = None
        if "temporal" in args.engines:
            state = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mixseek-bench-temporal-")))
            server = stack.enter_context(DevServer(state, persist=args.server_db == "file"))
        results = []
        failed: list[dict[str, Any]] = []  # a temporal run that failed is reported; the others go on
        for teams, engine, workers in configs:
            try:
                results.append(median_run(args, teams, engine, workers, server))
            except SystemExit as exc:
                if engine != "temporal":
                    raise
                failed.append({"teams": teams, "engine": engine, "workers": workers, "error": str(exc)})
                print(f"failed: T={teams} temporal/{workers}: {exc}", file=sys.stderr)
                continue
            print(f"done: T={teams} {label(results[-1])}: {results[-1]['wall_s']:.2f} s", file=sys.stderr)
    add_comparisons(results)
    if results:
        print_report(args, results)
        print_store(results)
    for f in failed:
        print(f"FAILED: T={f['teams']} temporal/{f['workers']}: {f['error']}")
    print(
        json.dumps(
            {
                "bench": "orchestration",
                "results": [{k: v for k, v in r.items() if k not in ("breakdown", "store")} for r in results],
                "failed": failed,
                "targets": {f"T={k}": v for k, v in TARGETS.items()},
                "aims": {
                    "temporal2_wall_vs_local_T64": AIM_WALL_VS_LOCAL,
                    "temporal_cpu_ms": AIM_TEMPORAL_MS,
                },
            }
        )
    )


if __name__ == "__main__":
    main()
    leave(0)  # as `mixseek` ends: the parent ran Temporal clients too (the dev server's readiness)
