"""A bench report as Markdown (`mixseek bench -f markdown`).

Task ids, tags and model answers are data, not markup: each is cut to one line, stripped of
control characters, and escaped so that it reads as typed — no table it breaks, no HTML or
link a viewer would render.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from mixseek.tasksets.report import EXCERPT_CHARS, LEVEL, BenchReport, Interval
from mixseek.text_safety import strip_controls

# inline markup a table cell could hold: code, emphasis, links and images, cell breaks, strike-through
_MARKUP = re.compile(r"([\\`*_\[\]|~])")


def text(value: object) -> str:
    """`value` as inert Markdown text on one line."""
    one_line = " ".join(strip_controls(str(value)).split())
    return _MARKUP.sub(r"\\\1", html.escape(one_line, quote=False))


def excerpt(content: str, limit: int = EXCERPT_CHARS) -> str:
    """The first `limit` characters of `content` on one line."""
    flat = " ".join(strip_controls(content).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def interval(value: Interval, digits: int = 2) -> str:
    return f"{value.mean:.{digits}f} [{value.low:.{digits}f}, {value.high:.{digits}f}]"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def render_markdown(report: BenchReport) -> str:
    names = report.names
    out = [
        f"# Bench {text(report.bench_id)}",
        "",
        f"- Tasks: {report.task_count} from `{excerpt(report.tasks_file, 200).replace('`', '')}` "
        f"(sha256 {report.tasks_sha256[:12]}), {report.repeats} repeat(s)",
        f"- Runs: {report.scored} scored of {report.planned} planned"
        + (
            f", {len(report.outcomes) - report.scored} unscored"
            if len(report.outcomes) > report.scored
            else ""
        )
        + (f", {report.missing} missing" if report.missing else ""),
        f"- Intervals: {LEVEL:.0%} percentile bootstrap of the mean over runs; sign test paired per task",
        "",
        "## Teams",
        "",
    ]
    out += _table(
        ["Team", "Win rate", "Mean score", "Mean rank", "Runs"],
        [
            [
                text(f"{t.team_name} ({t.team_id})"),
                interval(t.win_rate),
                interval(t.score, 1),
                interval(t.rank),
                str(t.runs),
            ]
            for t in report.teams
        ],
    )
    if report.pairs:
        out += ["", "## Pairwise", ""]
        out += _table(
            ["Team", "Opponent", "W-L-T (runs)", "W-L-T (tasks)", "Sign test p"],
            [
                [
                    text(names.get(p.team, p.team)),
                    text(names.get(p.opponent, p.opponent)),
                    f"{p.wins}-{p.losses}-{p.ties}",
                    f"{p.task_wins}-{p.task_losses}-{p.task_ties}",
                    f"{p.p_value:.4g}",
                ]
                for p in report.pairs
            ],
        )
    team_ids = [t.team_id for t in report.teams]
    if report.tags:
        out += ["", "## Mean score per tag", ""]
        out += _table(
            ["Tag", "Runs", *(text(names.get(t, t)) for t in team_ids)],
            [
                [
                    text(g.name),
                    str(g.runs),
                    *(f"{g.mean_scores[t]:.1f}" if t in g.mean_scores else "–" for t in team_ids),
                ]
                for g in report.tags
            ],
        )
    out += ["", "## Tasks", ""]
    out += _table(
        ["Task", "Tags", "Runs", *(text(names.get(t, t)) for t in team_ids), "Best answer"],
        [
            [
                text(g.name),
                text(", ".join(g.tags)),
                str(g.runs),
                *(f"{g.mean_scores[t]:.1f}" if t in g.mean_scores else "–" for t in team_ids),
                text(f"{names.get(g.best.team_id, g.best.team_id)}: {excerpt(g.best.content)}")
                if g.best
                else "–",
            ]
            for g in report.tasks
        ],
    )
    return "\n".join(out) + "\n"
