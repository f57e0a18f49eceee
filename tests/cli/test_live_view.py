"""The live teams × rounds table of `mixseek exec` on a terminal."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from e2e.scripted import write_workspace
from mixseek.cli.console import SafeConsole
from mixseek.cli.live_view import LiveView
from mixseek.cli.summary_view import print_summary
from mixseek.orchestrator.events import (
    ExecutionFinished,
    ExecutionStarted,
    TeamDecided,
    TeamRoundFinished,
    TeamRoundStarted,
)
from mixseek.orchestrator.models import BestSubmission, ExecutionSummary

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"


def test_live_view_shows_status_score_tokens_and_decision() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    with LiveView(console, max_rounds=2) as view:
        view(ExecutionStarted(execution_id="e1", teams=["alpha", "beta"], max_rounds=2))
        view(TeamRoundStarted(execution_id="e1", team_id="alpha", round_number=1))
        view(TeamRoundStarted(execution_id="e1", team_id="beta", round_number=1))
        view(
            TeamRoundFinished(
                execution_id="e1", team_id="alpha", round_number=1, status="completed", score=72.5, tokens=310
            )
        )
        view(TeamRoundFinished(execution_id="e1", team_id="beta", round_number=1, status="timeout"))
        view(
            TeamDecided(
                execution_id="e1", team_id="alpha", round_number=1, should_continue=True, reason="judgment"
            )
        )
        view(ExecutionFinished(execution_id="e1", status="partial_failure", best_team="alpha"))
    final = console.export_text() if console.record else out.getvalue()
    last_table = final[final.rfind("mixseek exec") :]
    assert "72.5 →" in last_table
    assert "310 tok" in last_table
    assert "timeout" in last_table
    assert "status=partial_failure best_team=alpha" in last_table


def test_event_log_line() -> None:
    event = TeamRoundFinished(
        execution_id="e1",
        team_id="alpha",
        round_number=2,
        status="completed",
        score=80.0,
        tokens=9,
        elapsed=1.5,
    )
    assert (
        event.as_line().split(" ", 1)[1]
        == "team_round_finished team=alpha round=2 status=completed score=80.0 tokens=9 elapsed=1.5"
    )


def test_running_timers_tick_between_events() -> None:
    now = [1000.0]
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    with LiveView(console, max_rounds=2, clock=lambda: now[0]) as view:
        view(ExecutionStarted(execution_id="e1", teams=["alpha"], max_rounds=2))
        view(TeamRoundStarted(execution_id="e1", team_id="alpha", round_number=1))
        now[0] = 1063.0  # 63 s later, and no event since
        view.live.refresh()  # what Rich's refresh thread does four times a second
        frame = out.getvalue()
    assert "… 63s" in frame[frame.rfind("mixseek exec") :]


def test_winner_panel_wraps_long_lines_on_a_narrow_terminal() -> None:
    content = " ".join(f"word{i}" for i in range(30)) + " https://example.com/" + "x" * 60 + " end"
    summary = ExecutionSummary(
        execution_id="e1",
        user_prompt="p",
        status="completed",
        stop_reason="finished",
        best=BestSubmission(team_id="alpha", team_name="Alpha", round_number=2, score=80.0, content=content),
    )
    out = io.StringIO()
    print_summary(SafeConsole(file=out, width=30, soft_wrap=True, highlight=False), summary)
    panel = out.getvalue().split("leaderboard")[0].splitlines()
    assert all(len(line) <= 30 for line in panel)
    inside = "".join(line[1:-1] for line in panel if line.startswith("│")).replace(" ", "")
    assert "".join(f"Alpha (alpha) — round 2, score 80.00/100{content}".split()) == inside


def test_no_library_banner_in_exec_output(tmp_path: Path) -> None:
    """pydantic-ai prints a first-run Logfire banner on stderr (or into the live table) when run
    from a clone; an agent-driven shell (AI_AGENT) gets it even on a pipe."""
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "CI", "PYDANTIC_AI_NO_BANNER")}
    proc = subprocess.run(
        [sys.executable, str(RUN_SCRIPTED), "exec", "課題", "-w", str(ws)],
        env={**env, "AI_AGENT": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "logfire" not in (proc.stdout + proc.stderr).lower()
    assert "team_round_finished" in proc.stderr  # the event lines are still there
