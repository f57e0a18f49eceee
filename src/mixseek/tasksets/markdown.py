"""A bench report as Markdown, every table cell escaped (`report.markdown_escape.table`)."""

from __future__ import annotations

from mixseek.report.markdown_escape import Trusted, cell, table
from mixseek.tasksets.report import (
    EXCERPT_CHARS,
    LEVEL,
    BaselineResult,
    BenchReport,
    GroupResult,
    Interval,
    PairResult,
    TeamResult,
)
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
        f"- Intervals: {LEVEL:.0%} percentile bootstrap of the mean over runs; sign test and paired "
        "permutation test per task",
    ]


def team_row(team: TeamResult) -> list[str]:
    """A team's name, win rate, mean score, mean rank and runs, as both report tables show them."""
    figures = [interval(team.win_rate), interval(team.score, 1), interval(team.rank)]
    return [f"{team.team_name} ({team.team_id})", *figures, str(team.runs)]


def pair_row(names: dict[str, str], p: PairResult) -> list[str]:
    return [
        names.get(p.team, p.team),
        names.get(p.opponent, p.opponent),
        f"{p.wins}-{p.losses}-{p.ties}",
        f"{p.task_wins}-{p.task_losses}-{p.task_ties}",
        f"{p.p_value:.4g}",
        f"{p.mean_difference:+.3g}",
        f"{p.paired_p:.4g}",
    ]


def baseline_row(names: dict[str, str], b: BaselineResult) -> list[str]:
    """A team's score now minus in the baseline bench: mean [interval] over tasks, and the paired p."""
    d = b.difference
    return [
        names.get(b.team_id, b.team_id),
        str(b.tasks),
        f"{d.mean:+.3g} [{d.low:+.3g}, {d.high:+.3g}]",
        f"{b.p_value:.4g}",
    ]


BASELINE_HEADERS = ["Team", "Tasks", "Mean score difference", "Paired p"]
SPEND_HEADERS = ["Team", "Cost (USD)", "Cost per task", "Latency p50 (s)", "Latency p95 (s)", "Frontier"]


def spend_row(team: TeamResult) -> list[str]:
    """A team's cost (– where a price is unknown), run time percentiles, and whether it is on the frontier."""
    figures = [
        (team.cost, ".4f"),
        (team.cost_per_task, ".4f"),
        (team.latency_p50, ".2f"),
        (team.latency_p95, ".2f"),
    ]
    cells = ["–" if value is None else f"{value:{spec}}" for value, spec in figures]
    return [team.team_name, *cells, "yes" if team.on_frontier else ""]


def means(group: GroupResult, team_ids: list[str]) -> list[str]:
    return [f"{group.mean_scores[t]:.1f}" if t in group.mean_scores else "–" for t in team_ids]


def _best(report: BenchReport, group: GroupResult) -> str:
    best = group.best
    return f"{report.names.get(best.team_id, best.team_id)}: {excerpt(best.content)}" if best else "–"


def render_markdown(report: BenchReport) -> str:
    names = report.names
    team_ids = [t.team_id for t in report.teams]
    team_names = [names.get(t, t) for t in team_ids]
    out = [*_summary(report), "", "## Teams", ""]
    # the figures' brackets are no link: written as they are
    rows = [[row[0], *map(Trusted, row[1:4]), row[4]] for row in map(team_row, report.teams)]
    out += table(["Team", "Win rate", "Mean score", "Mean rank", "Runs"], rows)
    if report.pairs:
        out += ["", "## Pairwise", ""]
        headers = [
            "Team",
            "Opponent",
            "W-L-T (runs)",
            "W-L-T (tasks)",
            "Sign test p",
            "Mean diff",
            "Paired p",
        ]
        out += table(headers, [pair_row(names, p) for p in report.pairs])
    if report.teams:
        out += ["", "## Cost and latency", ""]
        out += table(SPEND_HEADERS, [spend_row(t) for t in report.teams])
    if report.baseline_id is not None:
        out += ["", f"## Against bench {cell(report.baseline_id)}", ""]
        rows = [
            [row[0], row[1], Trusted(row[2]), row[3]]
            for row in (baseline_row(names, b) for b in report.baseline)
        ]
        out += table(BASELINE_HEADERS, rows)
    if report.tags:
        out += ["", "## Mean score per tag", ""]
        out += table(
            ["Tag", "Runs", *team_names], [[g.name, g.runs, *means(g, team_ids)] for g in report.tags]
        )
    out += ["", "## Tasks", ""]
    out += table(
        ["Task", "Tags", "Runs", *team_names, "Best answer"],
        [[g.name, ", ".join(g.tags), g.runs, *means(g, team_ids), _best(report, g)] for g in report.tasks],
    )
    if judged := report.judge_lines():
        out += ["", "## Judge bias", "", *(f"- {cell(j)}" for j in judged)]
    return "\n".join(out) + "\n"
