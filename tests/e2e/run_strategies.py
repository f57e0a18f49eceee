"""Runs the `mixseek` CLI in a separate process with the models of `strategies.py` (a selective, a
broadcast and a workflow team), so that a test can SIGKILL it in the middle of a round."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from e2e.strategies import StrategyWorld
from mixseek.cli.app import app
from mixseek.llm import override_models


def main() -> None:
    with override_models(StrategyWorld().models()):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
