"""Runs the `mixseek` CLI in a process of its own with the Sharpe world's scripted models."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from sharpe_world import models

from mixseek.cli.app import app
from mixseek.cli.entry import leave
from mixseek.llm import override_models


def main() -> None:
    try:
        with override_models(models()):
            app(sys.argv[1:], prog_name="mixseek")
    except SystemExit as exc:
        leave(exc.code)


if __name__ == "__main__":
    main()
