"""Benchmark: mixseek against mixseek-core on the same simulated workload, side by side.

    python bench/versus_core.py --core-python /path/to/core-venv/bin/python [--teams 1,8] [--repeat 5]

T teams x 3 rounds, a leader with 2 members, 3 metrics, a judgment after every round but the last
(23 model requests per team), every request a pydantic-ai `FunctionModel` that sleeps L seconds
(`--latency`, default 0.1). Each run is a fresh process; the two projects' runs alternate, so
that a noisy machine treats them alike. mixseek's side (`bench/_sim.py`'s models) times loading
the workspace, building the orchestrator and running it; mixseek-core's (`bench/_core_child.py`,
in mixseek-core's own virtualenv) times `Orchestrator.execute`, which loads its teams itself.
Prints medians per T (wall, CPU, peak RSS, and mixseek's wall over mixseek-core's), then one
JSON line.

mixseek-core's releases require Python >= 3.13.7; on a machine with an older Python, its code
runs on 3.11 when installed with `pip install --ignore-requires-python mixseek-core` into a
virtualenv of its own (it brings pydantic-ai 1.x).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _sim import SimWorld, write_workspace
from orchestration import (
    PROMPT,
    RESULT_MARK,
    child_result,
    expected_calls,
    lower_bound,
    own_peak_rss_mb,
    settings_for,
)

from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.orchestrator.orchestrator import Orchestrator

ROUNDS, MEMBERS, METRICS = 3, 2, 3
CORE_CHILD = Path(__file__).with_name("_core_child.py")


def run_ours(teams: int, latency: float) -> dict[str, Any]:
    world = SimWorld(latency)
    with tempfile.TemporaryDirectory(prefix="mixseek-versus-") as tmp:
        root = Path(tmp)
        settings = settings_for(teams)
        orchestrator_file = write_workspace(
            root, teams=teams, rounds=ROUNDS, members=MEMBERS, metrics=METRICS, **settings
        )
        with override_models(world.models()):
            started, cpu_started = time.perf_counter(), time.process_time()
            config = load_execution_config(Workspace(root), orchestrator_file)
            summary = asyncio.run(Orchestrator(config).run(PROMPT))
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if summary.status != "completed":
        raise SystemExit(f"mixseek: execution {summary.status}")
    return {"wall_s": wall, "cpu_s": cpu, "calls": len(world.calls), "peak_rss_mb": own_peak_rss_mb()}


def _child(argv: list[str], teams: int) -> dict[str, Any]:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    return child_result(teams, done.returncode, done.stdout, done.stderr)


def one_run(args: argparse.Namespace, project: str, teams: int) -> dict[str, Any]:
    if project == "mixseek":
        return _child([sys.executable, __file__, "--ours", str(teams), "--latency", str(args.latency)], teams)
    with tempfile.TemporaryDirectory(prefix="mixseek-core-versus-") as tmp:
        return _child(
            [args.core_python, str(CORE_CHILD), str(Path(tmp) / "ws"), str(teams), str(args.latency)], teams
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--core-python", help="the python of a virtualenv with mixseek-core installed")
    parser.add_argument("--teams", default="1,8")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ours", type=int, help=argparse.SUPPRESS)  # child: mixseek's side, T teams
    args = parser.parse_args()
    if args.ours is not None:
        print(RESULT_MARK + json.dumps(run_ours(args.ours, args.latency)), flush=True)
        return
    if not args.core_python:
        parser.error("--core-python is required")
    team_counts = [int(t) for t in args.teams.split(",") if t.strip()]
    rows = []
    for teams in team_counts:
        runs: dict[str, list[dict[str, Any]]] = {"mixseek": [], "mixseek-core": []}
        for _ in range(args.repeat):
            for project in runs:
                result = one_run(args, project, teams)
                expected = expected_calls(teams, ROUNDS, MEMBERS, METRICS)
                if result["calls"] != expected:
                    raise SystemExit(
                        f"{project}: {result['calls']} model calls at T={teams}, expected {expected}"
                    )
                runs[project].append(result)
        row: dict[str, Any] = {"teams": teams, "bound_s": lower_bound(ROUNDS, args.latency)}
        for project, results in runs.items():
            row[project] = {
                key: round(statistics.median(r[key] for r in results), 3)
                for key in ("wall_s", "cpu_s", "peak_rss_mb")
            }
            row[project]["wall_range_s"] = [round(min(r["wall_s"] for r in results), 3),
                                            round(max(r["wall_s"] for r in results), 3)]  # fmt: skip
        row["wall_ratio"] = round(row["mixseek"]["wall_s"] / row["mixseek-core"]["wall_s"], 3)
        row["cpu_ratio"] = round(row["mixseek"]["cpu_s"] / row["mixseek-core"]["cpu_s"], 3)
        rows.append(row)
    print(f"T teams x {ROUNDS} rounds, {MEMBERS} members, {METRICS} metrics, L = {args.latency:g} s; "
          f"medians of {args.repeat} alternating runs, fresh processes")  # fmt: skip
    header = f"{'T':>4} {'bound s':>8} {'project':>13} {'wall s':>8} {'range':>13} {'CPU s':>7} {'RSS MB':>7}"
    print(header)
    print("-" * len(header))
    for row in rows:
        for project in ("mixseek", "mixseek-core"):
            r = row[project]
            low, high = r["wall_range_s"]
            print(f"{row['teams']:>4} {row['bound_s']:>8.2f} {project:>13} {r['wall_s']:>8.3f} "
                  f"{f'{low:.2f}-{high:.2f}':>13} {r['cpu_s']:>7.3f} {r['peak_rss_mb']:>7.0f}")  # fmt: skip
        print(f"{'':>4} mixseek / mixseek-core: wall {row['wall_ratio']:.3f}, CPU {row['cpu_ratio']:.3f}")
    print(
        json.dumps(
            {"bench": "versus_core", "latency_s": args.latency, "repeat": args.repeat, "results": rows}
        )
    )


if __name__ == "__main__":
    main()
