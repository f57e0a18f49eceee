"""`mixseek bench` as terminal tables: every data cell goes in as rich `Text`, so no markup is read in it."""

from __future__ import annotations

from collections.abc import Iterable

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


def _print(
    console: Console, title: str, headers: list[str], numeric: range, rows: Iterable[list[str]]
) -> None:
    table = _table(title, headers, numeric)
    for row in rows:
        table.add_row(*map(Text, row))
    console.print(table)


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
    teams = ["team", "win rate", "mean score", "mean rank", "runs"]
    _print(console, "teams", teams, range(1, 5), map(team_row, report.teams))
    if report.pairs:
        headers = ["team", "opponent", "W-L-T runs", "W-L-T tasks", "sign test p", "mean diff", "paired p"]
        _print(console, "pairwise", headers, range(2, 7), (pair_row(names, p) for p in report.pairs))
    spend = [h.lower() for h in SPEND_HEADERS]
    _print(console, "cost and latency", spend, range(1, 5), map(spend_row, report.teams))
    if report.baseline_id is not None:
        against = (baseline_row(names, b) for b in report.baseline)
        headers = [h.lower() for h in BASELINE_HEADERS]
        _print(console, f"against bench {report.baseline_id}", headers, range(1, 4), against)
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
