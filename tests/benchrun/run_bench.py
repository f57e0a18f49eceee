"""Runs the `mixseek` CLI in a separate process with the scripted models of `world.py`.

BENCH_KILL_AT=n makes the process SIGKILL itself at the n-th leader call (a power loss in the
middle of a bench), BENCH_SIGINT_AT=n sends itself SIGINT there (Ctrl-C), BENCH_EXTRA is appended
to every answer, BENCH_SHIFT="alpha=-12" is added to a team's scores.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchrun.world import BenchWorld
from mixseek.cli.app import app
from mixseek.llm import override_models


def main() -> None:
    kill_at = int(os.environ.get("BENCH_KILL_AT", "0"))
    sigint_at = int(os.environ.get("BENCH_SIGINT_AT", "0"))

    def hook(count: int) -> None:
        if count == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if count == sigint_at:
            os.kill(os.getpid(), signal.SIGINT)

    shift = dict(item.split("=") for item in os.environ.get("BENCH_SHIFT", "").split(",") if item)
    world = BenchWorld(
        on_leader_call=hook,
        extra=os.environ.get("BENCH_EXTRA", ""),
        shift={team: float(value) for team, value in shift.items()},
    )
    with override_models(world.models()):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
