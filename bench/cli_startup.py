"""Benchmark: how long the `mixseek` command takes to answer the quick commands.

Each command runs N times as a real subprocess (`python -m mixseek.cli ...`, what the `mixseek`
script runs) and the median wall time (and CPU time) is reported next to `python -c pass`, the
interpreter's own start-up on this machine, and with whether the process imported pydantic-ai
(the CLI should import it only for commands that build or call models):

- `--help`;
- `runs list -w WS`, WS holding one finished two-team execution (run in-process first with the
  simulated models of `bench/_sim.py`, latency 0);
- `config validate -w WS2`, WS2 the workspace `mixseek init` writes.

Prints a table, then one JSON line:

    {"bench": "cli_startup", "runs": N, "results": {"--help": {"median_s": ..., ...}, ...},
     "target_s": 0.3}

`--baseline SRC` times another copy of mixseek's source (SRC is its `src` directory, put first on
PYTHONPATH) side by side: each run of a command runs it once with each tree, alternately, so both
see the same load on a shared machine; the JSON then holds "baseline" results too.

Run: python bench/cli_startup.py [--runs 9] [--baseline /path/to/other/src]
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _sim import SimWorld, write_workspace

TARGET_S = 0.3
PROMPT = "Write a short plan for a benchmark of an LLM team framework."
# prints whether pydantic_ai was imported once the command has finished
_PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('@@pydantic_ai', 'pydantic_ai' in sys.modules, file=sys.stderr))\n"
    "sys.argv[0] = 'mixseek'\n"
    "from mixseek.cli.entry import main\n"
    "main()\n"
)


def _populated_workspace(root: Path) -> Path:
    """A workspace whose store holds one finished execution of two teams."""
    from mixseek.api.mixseek import Mixseek
    from mixseek.config.bundle import load_execution_config
    from mixseek.config.workspace import Workspace
    from mixseek.llm import override_models

    orchestrator_file = write_workspace(
        root,
        teams=2,
        rounds=2,
        members=2,
        metrics=1,
        max_concurrent_teams=2,
        max_concurrent_requests_per_model=8,
    )
    world = SimWorld(0.0)
    with override_models(world.models()):
        config = load_execution_config(Workspace(root), orchestrator_file)
        asyncio.run(Mixseek.from_config(config).run(PROMPT))
    return root


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], env: dict[str, str] | None) -> tuple[float, float, bool]:
    """(wall seconds, CPU seconds, whether pydantic-ai was imported) of one run of `argv`."""
    cpu_started, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu_started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
    return elapsed, cpu, "@@pydantic_ai True" in done.stderr


def _summary(samples: list[float], cpu: list[float], imported: bool) -> dict[str, object]:
    return {
        "median_s": round(statistics.median(samples), 3),
        "min_s": round(min(samples), 3),
        "max_s": round(max(samples), 3),
        # user + system CPU: what the command costs, less disturbed by a loaded machine than wall time
        "cpu_median_s": round(statistics.median(cpu), 3),
        "pydantic_ai": imported,
    }


def _time(argv: list[str], runs: int, envs: list[dict[str, str] | None]) -> list[dict[str, object]]:
    """`argv` run `runs` times under each environment of `envs`, alternately."""
    walls: list[list[float]] = [[] for _ in envs]
    cpus: list[list[float]] = [[] for _ in envs]
    imported = [False for _ in envs]
    for _ in range(runs):
        for i, env in enumerate(envs):
            elapsed, cpu, imported[i] = _run(argv, env)
            walls[i].append(elapsed)
            cpus[i].append(cpu)
    return [_summary(w, c, flag) for w, c, flag in zip(walls, cpus, imported, strict=True)]


def _compile_bytecode(sources: list[Path]) -> None:
    """Write the bytecode caches of the mixseek packages timed (as an installed package has them):
    with PYTHONDONTWRITEBYTECODE set, every run would otherwise compile each edited module anew."""
    import mixseek

    packages = [Path(mixseek.__file__).parent, *(source / "mixseek" for source in sources)]
    for package in packages:
        compileall.compile_dir(str(package), quiet=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (the median is reported)")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="another mixseek `src` directory to time side by side"
    )
    args = parser.parse_args(argv)
    envs: list[dict[str, str] | None] = [None]
    if args.baseline is not None:
        if not (args.baseline / "mixseek" / "__init__.py").is_file():
            raise SystemExit(f"--baseline: {args.baseline}: no mixseek package there")
        path = [str(args.baseline.resolve()), *filter(None, [os.environ.get("PYTHONPATH")])]
        envs.append({**os.environ, "PYTHONPATH": os.pathsep.join(path)})
    _compile_bytecode([args.baseline] if args.baseline is not None else [])
    with tempfile.TemporaryDirectory(prefix="mixseek-cli-bench-") as tmp:
        runs_ws = _populated_workspace(Path(tmp) / "runs")
        init_ws = Path(tmp) / "init"
        subprocess.run(
            [sys.executable, "-m", "mixseek.cli", "init", "-w", str(init_ws)], check=True, capture_output=True
        )
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "--help": [sys.executable, "-c", _PROBE, "--help"],
            "runs list": [sys.executable, "-c", _PROBE, "runs", "list", "-w", str(runs_ws)],
            "config validate": [sys.executable, "-c", _PROBE, "config", "validate", "-w", str(init_ws)],
        }
        timed = {name: _time(command, args.runs, envs) for name, command in cases.items()}
    results = {name: rows[0] for name, rows in timed.items()}
    header = f"{'command':<16} {'median s':>9} {'min s':>7} {'max s':>7} {'cpu s':>6}  imports pydantic_ai"
    if args.baseline is not None:
        header += f"  {'baseline median s':>17} {'min s':>7} {'cpu s':>6}  ratio"
    print(header)
    for name, rows in timed.items():
        row = rows[0]
        flag = "-" if name.startswith("python") else ("yes" if row["pydantic_ai"] else "no")
        line = (
            f"{name:<16} {row['median_s']:>9.3f} {row['min_s']:>7.3f} {row['max_s']:>7.3f}"
            f" {row['cpu_median_s']:>6.3f}  {flag:<19}"
        )
        if args.baseline is not None:
            base = rows[1]
            ratio = float(row["median_s"]) / float(base["median_s"])  # type: ignore[arg-type]
            line += f"  {base['median_s']:>17.3f} {base['min_s']:>7.3f} {base['cpu_median_s']:>6.3f}"
            line += f"  {ratio:.2f}"
        print(line.rstrip())
    report: dict[str, object] = {"bench": "cli_startup", "runs": args.runs, "results": results}
    if args.baseline is not None:
        report["baseline"] = {"src": str(args.baseline), "results": {n: rows[1] for n, rows in timed.items()}}
    report["target_s"] = TARGET_S
    print(json.dumps(report))


if __name__ == "__main__":
    main()
