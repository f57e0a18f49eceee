"""Runs the `mixseek` CLI in a separate process with the scripted models of `scripted.py`.

Test-only: SCRIPTED_KILL_AT="team:round" makes the process SIGKILL itself when
that team's leader is first called in that round (a power loss mid-round);
SCRIPTED_LEADER_DELAY slows every leader call (to send Ctrl-C mid-round).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from scripted import World

from mixseek.cli.app import app
from mixseek.llm import override_models


def main() -> None:
    kill_at = os.environ.get("SCRIPTED_KILL_AT", "")

    def hook(team: str, round_number: int) -> None:
        if kill_at == f"{team}:{round_number}":
            os.kill(os.getpid(), signal.SIGKILL)

    world = World(on_leader_call=hook, leader_delay=float(os.environ.get("SCRIPTED_LEADER_DELAY", "0")))
    with override_models(world.models()):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
