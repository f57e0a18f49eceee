"""Benchmark: how long the `mixseek` command takes to answer the quick commands.

Each command runs N times as a real subprocess (`python -m mixseek.cli ...`, what the `mixseek`
script runs) and the median wall time is reported next to `python -c pass`, the interpreter's
own start-up on this machine, and with whether the process imported pydantic-ai (the CLI should
import it only for commands that build or call models):

- `--help`;
- `runs list -w WS`, WS holding one finished two-team execution (run in-process first with the
  simulated models of `bench/_sim.py`, latency 0);
- `config validate -w WS2`, WS2 the workspace `mixseek init` writes.

Prints a table, then one JSON line:

    {"bench": "cli_startup", "runs": N, "results": {"--help": {"median_s": ..., ...}, ...},
     "target_s": 0.3}

Run: python bench/cli_startup.py [--runs 9]
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
    from mixseek.api import Mixseek
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


def _time(argv: list[str], runs: int) -> tuple[list[float], bool]:
    samples: list[float] = []
    imported = False
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        samples.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
        imported = "@@pydantic_ai True" in done.stderr
    return samples, imported


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (the median is reported)")
    args = parser.parse_args(argv)
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
        results: dict[str, dict[str, object]] = {}
        for name, command in cases.items():
            samples, imported = _time(command, args.runs)
            results[name] = {
                "median_s": round(statistics.median(samples), 3),
                "min_s": round(min(samples), 3),
                "max_s": round(max(samples), 3),
                "pydantic_ai": imported,
            }
    print(f"{'command':<16} {'median s':>9} {'min s':>7} {'max s':>7}  imports pydantic_ai")
    for name, row in results.items():
        flag = "-" if name.startswith("python") else ("yes" if row["pydantic_ai"] else "no")
        print(f"{name:<16} {row['median_s']:>9.3f} {row['min_s']:>7.3f} {row['max_s']:>7.3f}  {flag}")
    print(json.dumps({"bench": "cli_startup", "runs": args.runs, "results": results, "target_s": TARGET_S}))


if __name__ == "__main__":
    main()
