"""A bench report as Markdown (`mixseek bench -f markdown`).

Task ids, tags and model answers are data, not markup: every table cell is written by
`report.markdown_escape.table`, so it reads as typed — no table it breaks, no HTML or link a
viewer would render.
"""

from __future__ import annotations

from mixseek.report.markdown_escape import Trusted, cell, table
from mixseek.tasksets.report import EXCERPT_CHARS, LEVEL, BenchReport, GroupResult, Interval
from mixseek.text_safety import strip_controls


def excerpt(content: str, limit: int = EXCERPT_CHARS) -> str:
    """The first `limit` characters of `content` on one line."""
    flat = " ".join(strip_controls(content).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def interval(value: Interval, digits: int = 2) -> str:
    return f"{value.mean:.{digits}f} [{value.low:.{digits}f}, {value.high:.{digits}f}]"


def _summary(report: BenchReport) -> list[str]:
    unscored = len(report.outcomes) - report.scored
    return [
        f"# Bench {cell(report.bench_id)}",
        "",
        f"- Tasks: {report.task_count} from `{excerpt(report.tasks_file, 200).replace('`', '')}` "
        f"(sha256 {report.tasks_sha256[:12]}), {report.repeats} repeat(s)",
        f"- Runs: {report.scored} scored of {report.planned} planned"
        + (f", {unscored} unscored" if unscored > 0 else "")
        + (f", {report.missing} missing" if report.missing else ""),
        f"- Intervals: {LEVEL:.0%} percentile bootstrap of the mean over runs; sign test paired per task",
    ]


def _intervals(win_rate: Interval, score: Interval, rank: Interval) -> list[Trusted]:
    """A team's figures, which a table writes as they are (their brackets are no link)."""
    return [Trusted(interval(win_rate)), Trusted(interval(score, 1)), Trusted(interval(rank))]


def _means(group: GroupResult, team_ids: list[str]) -> list[str]:
    return [f"{group.mean_scores[t]:.1f}" if t in group.mean_scores else "–" for t in team_ids]


def _best(report: BenchReport, group: GroupResult) -> str:
    best = group.best
    return f"{report.names.get(best.team_id, best.team_id)}: {excerpt(best.content)}" if best else "–"


def render_markdown(report: BenchReport) -> str:
    names = report.names
    team_ids = [t.team_id for t in report.teams]
    team_names = [names.get(t, t) for t in team_ids]
    out = [*_summary(report), "", "## Teams", ""]
    out += table(
        ["Team", "Win rate", "Mean score", "Mean rank", "Runs"],
        [
            [f"{t.team_name} ({t.team_id})", *_intervals(t.win_rate, t.score, t.rank), t.runs]
            for t in report.teams
        ],
    )
    if report.pairs:
        out += ["", "## Pairwise", ""]
        out += table(
            ["Team", "Opponent", "W-L-T (runs)", "W-L-T (tasks)", "Sign test p"],
            [
                [
                    names.get(p.team, p.team),
                    names.get(p.opponent, p.opponent),
                    f"{p.wins}-{p.losses}-{p.ties}",
                    f"{p.task_wins}-{p.task_losses}-{p.task_ties}",
                    f"{p.p_value:.4g}",
                ]
                for p in report.pairs
            ],
        )
    if report.tags:
        out += ["", "## Mean score per tag", ""]
        out += table(
            ["Tag", "Runs", *team_names], [[g.name, g.runs, *_means(g, team_ids)] for g in report.tags]
        )
    out += ["", "## Tasks", ""]
    out += table(
        ["Task", "Tags", "Runs", *team_names, "Best answer"],
        [[g.name, ", ".join(g.tags), g.runs, *_means(g, team_ids), _best(report, g)] for g in report.tasks],
    )
    return "\n".join(out) + "\n"
