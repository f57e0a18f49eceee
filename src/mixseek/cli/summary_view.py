"""Printing an execution's result: the winner, the leaderboard and the summary."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from mixseek.cli.runs_export import LEADERBOARD_HEADERS, leaderboard_rows
from mixseek.orchestrator.models import ExecutionSummary
from mixseek.report import pairwise as pairwise_rows
from mixseek.storage.overview import status_words
from mixseek.storage.pairwise_views import PairwiseView
from mixseek.storage.views import RankingEntry
from mixseek.text_safety import strip_controls_in


def leaderboard_table(ranking: Sequence[RankingEntry]) -> Table:
    table = Table(title="leaderboard", title_justify="left")
    for column in LEADERBOARD_HEADERS:
        table.add_column(column)
    for row in leaderboard_rows(ranking):
        table.add_row(*map(Text, row))  # Text: no markup read in team names
    return table


def pairwise_table(pairwise: PairwiseView) -> Table:
    """The pairwise ranking (Bradley–Terry strengths) beside the score leaderboard."""
    table = Table(title=escape(f"pairwise ranking: {pairwise_rows.heading(pairwise)}"), title_justify="left")
    for column in pairwise_rows.STANDING_HEADERS:
        table.add_column(column)
    for row in pairwise_rows.standing_rows(pairwise):
        table.add_row(*(escape(value) for value in row))
    return table


def winner_panel(summary: ExecutionSummary) -> Panel | None:
    """The winning submission, wrapped to the console's width: every word of it is shown."""
    best = summary.best
    if best is None:
        return None
    # in the body, not the title: a title is one line, cut off when it is too long
    header = Text(
        f"{best.team_name} ({best.team_id}) — round {best.round_number}, "
        f"score {best.score:.2f}{summary.out_of}",
        style="bold",
        overflow="fold",
    )
    body = Group(header, Text(""), Text(best.content, overflow="fold"))
    return Panel(body, title="winner", title_align="left")


def print_summary(console: Console, summary: ExecutionSummary) -> None:
    # model text may hold escape sequences: lay out the text as it will be shown
    summary = ExecutionSummary.model_validate(strip_controls_in(summary.model_dump()))
    panel = winner_panel(summary)
    if panel is not None:
        # the consoles never wrap plain lines; a panel that did not wrap would cut its text off
        console.print(panel, soft_wrap=False)
    else:
        console.print("no team completed a round: there is no winning submission")
    console.print(leaderboard_table(summary.leaderboard))
    if summary.pairwise is not None:
        console.print(pairwise_table(summary.pairwise))
    teams = Table(title="teams", title_justify="left")
    for column in ("team", "status", "rounds", "best round", "stopped because", "error"):
        teams.add_column(column)
    for t in summary.teams:
        teams.add_row(
            escape(t.team_id),
            t.status,
            str(t.rounds_completed),
            str(t.best_round or ""),
            t.exit_reason or "",
            escape(t.error or ""),
        )
    console.print(teams)
    usage = summary.usage
    cost = f", cost ${summary.cost_usd:.4f}" if summary.cost_usd is not None else ""
    console.print(
        f"execution {summary.execution_id}: "
        f"{escape(status_words(summary.status, summary.stop_reason, summary.stop_detail))} — "
        f"{summary.rounds_run} round(s), {usage.requests} requests, "
        f"{usage.input_tokens} input + {usage.output_tokens} output tokens{cost}, "
        f"{summary.duration_seconds:.1f} s"
    )
    for reason in summary.degraded_reasons:
        console.print(f"degraded: {escape(reason)}", style="bold yellow")
    if summary.demo_model_note:
        console.print(escape(summary.demo_model_note), style="yellow", soft_wrap=True)
