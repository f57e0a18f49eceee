"""`mixseek bench` as terminal tables: every data cell goes in as rich `Text`, so no markup is read in it."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mixseek.tasksets.markdown import (
    BASELINE_HEADERS,
    SPEND_HEADERS,
    baseline_row,
    excerpt,
    means,
    pair_row,
    spend_row,
    team_row,
)
from mixseek.tasksets.report import LEVEL, BenchReport


def _table(title: str, headers: list[str], numeric: range) -> Table:
    """Figures right-aligned and never wrapped ("0.83 [0.67, 1.00]" stays on one line)."""
    table = Table(title=title, title_justify="left")
    for index, header in enumerate(headers):
        figure = index in numeric
        table.add_column(header, justify="right" if figure else "left", no_wrap=figure)
    return table


def print_report(console: Console, report: BenchReport) -> None:
    names = report.names
    console.print(
        Text(
            f"bench {report.bench_id}: {report.scored} of {report.planned} run(s) scored "
            f"({report.task_count} task(s) × {report.repeats} repeat(s))"
            + (f", {report.missing} missing" if report.missing else "")
            + f"; intervals: {LEVEL:.0%} bootstrap; sign test and paired permutation test per task"
        )
    )
    teams = _table("teams", ["team", "win rate", "mean score", "mean rank", "runs"], range(1, 5))
    for t in report.teams:
        teams.add_row(*map(Text, team_row(t)))
    console.print(teams)
    if report.pairs:
        pairs = _table(
            "pairwise",
            ["team", "opponent", "W-L-T runs", "W-L-T tasks", "sign test p", "mean diff", "paired p"],
            range(2, 7),
        )
        for p in report.pairs:
            pairs.add_row(*map(Text, pair_row(names, p)))
        console.print(pairs)
    spend = _table("cost and latency", [h.lower() for h in SPEND_HEADERS], range(1, 5))
    for t in report.teams:
        spend.add_row(*map(Text, spend_row(t)))
    console.print(spend)
    if report.baseline_id is not None:
        against = _table(
            f"against bench {report.baseline_id}", [h.lower() for h in BASELINE_HEADERS], range(1, 4)
        )
        for b in report.baseline:
            against.add_row(*map(Text, baseline_row(names, b)))
        console.print(against)
    team_ids = [t.team_id for t in report.teams]
    columns = [names.get(t, t) for t in team_ids]
    if report.tags:
        tags = _table("mean score per tag", ["tag", "runs", *columns], range(1, 2 + len(columns)))
        for g in report.tags:
            tags.add_row(Text(g.name), str(g.runs), *means(g, team_ids))
        console.print(tags)
    tasks = _table("tasks", ["task", "tags", "runs", *columns, "best answer"], range(2, 3 + len(columns)))
    for g in report.tasks:
        best = (
            f"{names.get(g.best.team_id, g.best.team_id)}: {excerpt(g.best.content, 60)}" if g.best else "–"
        )
        tasks.add_row(
            Text(g.name),
            Text(", ".join(g.tags)),
            str(g.runs),
            *means(g, team_ids),
            Text(best, justify="left"),
        )
    console.print(tasks)
    for judged in report.judge_lines():
        console.print(Text(judged))
