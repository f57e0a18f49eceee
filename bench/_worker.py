"""A `mixseek worker` for `bench/orchestration.py`: the real command, the bench's simulated models.

    python bench/_worker.py LATENCY CALLS_JSON worker -w DIR --temporal-address HOST:PORT ...

Every model string `sim:<role>` resolves to the fixed-latency `FunctionModel` of `bench/_sim.py`
(through `mixseek.llm.override_models`, active for the whole command, so for every activity the
worker runs). When the worker stops (SIGTERM) it writes the calls it made, with their team, round
and `time.perf_counter` times (CLOCK_MONOTONIC: comparable with the exec process's), to CALLS_JSON.
With MIXSEEK_BENCH_WORKER_PROFILE=PREFIX set it also writes cProfile stats of its event-loop
thread's CPU time (not its waits) to PREFIX-<pid>.prof.
"""

from __future__ import annotations

import cProfile
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from _sim import SimWorld

from mixseek.cli.app import app
from mixseek.cli.entry import leave
from mixseek.llm import override_models


def main() -> None:
    latency, calls_out, argv = float(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    world = SimWorld(latency)
    prefix = os.environ.get("MIXSEEK_BENCH_WORKER_PROFILE")
    profiler = cProfile.Profile(time.thread_time) if prefix else None  # CPU, not waits
    code: object = 0
    try:
        with override_models(world.models()):
            if profiler is not None:
                profiler.enable()
            app(argv, prog_name="mixseek")
    except SystemExit as exc:
        code = exc.code
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(f"{prefix}-{os.getpid()}.prof")
        calls_out.write_text(json.dumps([asdict(call) for call in world.calls]))
    leave(code)  # as `mixseek` ends


if __name__ == "__main__":
    main()
