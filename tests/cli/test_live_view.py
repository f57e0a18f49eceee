"""The live teams × rounds table of `mixseek exec` on a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from mixseek.cli.live_view import LiveView
from mixseek.orchestrator.events import Event


def test_live_view_shows_status_score_tokens_and_decision() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    with LiveView(console, max_rounds=2) as view:
        view(Event("execution_started", "e1", data={"teams": ["alpha", "beta"]}))
        view(Event("team_round_started", "e1", "alpha", 1))
        view(Event("team_round_started", "e1", "beta", 1))
        view(
            Event(
                "team_round_finished", "e1", "alpha", 1, {"status": "completed", "score": 72.5, "tokens": 310}
            )
        )
        view(Event("team_round_finished", "e1", "beta", 1, {"status": "timeout", "score": None, "tokens": 0}))
        view(Event("team_decided", "e1", "alpha", 1, {"should_continue": True}))
        view(Event("execution_finished", "e1", data={"status": "partial_failure", "best_team": "alpha"}))
    final = console.export_text() if console.record else out.getvalue()
    last_table = final[final.rfind("mixseek exec") :]
    assert "72.5 →" in last_table
    assert "310 tok" in last_table
    assert "timeout" in last_table
    assert "status=partial_failure best_team=alpha" in last_table


def test_event_log_line() -> None:
    event = Event(
        "team_round_finished", "e1", "alpha", 2, {"status": "completed", "score": 80.0, "error": None}
    )
    assert (
        event.as_line().split(" ", 1)[1]
        == "team_round_finished team=alpha round=2 status=completed score=80.0"
    )
