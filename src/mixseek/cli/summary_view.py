"""Printing an execution's result: the winner, the leaderboard and the summary."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from mixseek.orchestrator.models import ExecutionSummary


def leaderboard_table(ranking: list[dict[str, object]]) -> Table:
    table = Table(title="leaderboard", title_justify="left")
    for column in ("#", "team", "best score", "rounds"):
        table.add_column(column)
    for position, entry in enumerate(ranking, start=1):
        score = entry.get("max_score")
        table.add_row(
            str(position),
            escape(f"{entry.get('team_name')} ({entry.get('team_id')})"),
            f"{score:.2f}" if isinstance(score, int | float) else "",
            str(entry.get("total_rounds")),
        )
    return table


def print_summary(console: Console, summary: ExecutionSummary) -> None:
    if summary.best is not None:
        best = summary.best
        console.print(
            Panel(
                escape(best.content),
                title=escape(
                    f"winner: {best.team_name} ({best.team_id}) — round {best.round_number}, "
                    f"score {best.score:.2f}/100"
                ),
                title_align="left",
            )
        )
    else:
        console.print("no team completed a round: there is no winning submission")
    console.print(leaderboard_table(summary.leaderboard))
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
        f"execution {summary.execution_id}: {summary.status} ({summary.stop_reason}"
        f"{': ' + escape(summary.stop_detail) if summary.stop_detail else ''}) — "
        f"{summary.rounds_run} round(s), {usage.get('requests', 0)} requests, "
        f"{usage.get('input_tokens', 0)} input + {usage.get('output_tokens', 0)} output tokens{cost}, "
        f"{summary.duration_seconds:.1f} s"
    )
