"""The dashboard's execution page shows the pairwise judge's bias, read from the store, in Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pairwise.pairwise_script import pairwise_workspace
from ui.conftest import Served

RUN_PAIRWISE = Path(__file__).parents[1] / "pairwise" / "run_pairwise.py"


def test_execution_page_shows_the_judges_bias(
    tmp_path: Path, serve: Callable[..., Served], page: Any
) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    done = subprocess.run(
        [sys.executable, str(RUN_PAIRWISE), "exec", "最良の回答を", "-w", str(ws), "-f", "json"],
        capture_output=True,
        text=True,
        env={**env, "PAIRWISE_ORDER": "beta,alpha,gamma"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    served = serve(ws)
    page.goto(f"{served.url}/executions/{json.loads(done.stdout)['execution_id']}")
    section = page.locator("#judge-bias")
    assert section.locator("h2").inner_text() == "Judge bias"
    assert "pairwise judge (script:pairwise)" in section.inner_text()
    items = section.locator("li").all_inner_texts()
    # a judge that knows its order never flips; beta, the shortest, wins against both longer ones
    assert items[0] == "verdict flipped with the order: 0 of 3 (0%, 95% CI 0%–56%)"
    assert items[1].startswith("longer submission won: 0 of ")
