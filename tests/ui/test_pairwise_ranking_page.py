"""The dashboard's execution page shows the pairwise ranking and the length-controlled one beside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

from pairwise.pairwise_script import pairwise_workspace
from ui.conftest import Served

RUN_PAIRWISE = Path(__file__).parents[1] / "pairwise" / "run_pairwise.py"


def test_execution_page_shows_both_pairwise_rankings(tmp_path: Path, serve: Callable[..., Served]) -> None:
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
    execution_id = json.loads(done.stdout)["execution_id"]
    with httpx.Client(base_url=serve(ws).url, timeout=60) as client:
        page = client.get(f"/executions/{execution_id}").text
    section = page[page.index('<section id="pairwise">') :]
    section = section[: section.index("</section>")]
    assert "<h3>Bradley–Terry</h3>" in section
    assert "<h3>Length-controlled (length and Markdown differences as covariates" in section
    assert section.count("<td>Beta (beta)</td>") == 2  # first in both
