"""`mixseek exec --engine temporal --workers 2` on a terminal: the line naming the dev server it
started comes first, and the live table is drawn once.

The line used to be written to the terminal under the live table, whose next redraw moved up by
the table's height from where the line had left the cursor: it erased the line and left a stale
copy of the table's top (its title `mixseek exec` twice on the screen)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from e2e.scripted import write_workspace
from terminal import Screen, run_on_terminal

from .cluster import RUN_SCRIPTED


def test_the_dev_server_line_comes_before_a_live_table_drawn_once(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_") and k != "COLUMNS"}
    run = run_on_terminal(
        [sys.executable, str(RUN_SCRIPTED), "exec", "最良の回答を", "-w", str(ws),
         "--engine", "temporal", "--workers", "2"],
        env={**env, "TERM": "xterm"},
        columns=80,
    )  # fmt: skip
    lines = Screen(80).feed(run.output).text()
    assert run.returncode == 0, "\n".join(lines)
    assert re.fullmatch(
        r"temporal: dev server 127\.0\.0\.1:\d+ \(UI http://127\.0\.0\.1:\d+\), 2 worker\(s\)", lines[0]
    ), lines[:3]
    assert lines[1] == "mixseek exec"
    assert lines.count("mixseek exec") == 1
    assert len([line for line in lines if line.startswith("┃ team") and "round 1" in line]) == 1
    live = lines[1 : next(i for i, line in enumerate(lines) if line.startswith("└"))]
    rows = [line.split("│")[1:4] for line in live if line.startswith(("│ alpha", "│ beta"))]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["alpha", "60.0 →", "75.0 ■"],
        ["beta", "70.0 →", "72.0 ■"],
    ]
    assert "status=completed best_team=alpha best_score=75.0" in lines
