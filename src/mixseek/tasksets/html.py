"""A bench report as one self-contained HTML file, in the style (and CSP) of the execution report."""

from __future__ import annotations

from markupsafe import Markup, escape

from mixseek.report.charts import PALETTE
from mixseek.report.html import CONTENT_SECURITY_POLICY, TEMPLATES
from mixseek.tasksets.markdown import (
    BASELINE_HEADERS,
    SPEND_HEADERS,
    baseline_row,
    excerpt,
    interval,
    spend_row,
)
from mixseek.tasksets.report import LEVEL, BenchReport
from mixseek.text_safety import strip_controls

_W, _H, _PAD = 560, 260, 48
_FONT = 'font-family="sans-serif" font-size="11"'


def render_html(report: BenchReport) -> str:
    page = TEMPLATES.get_template("bench.html").render(
        report=report,
        csp=CONTENT_SECURITY_POLICY,
        level=LEVEL,
        interval=interval,
        excerpt=excerpt,
        baseline_headers=BASELINE_HEADERS,
        baseline_row=baseline_row,
        spend_headers=SPEND_HEADERS,
        spend_row=spend_row,
        frontier_svg=frontier_svg(report),
    )
    return strip_controls(page)


def frontier_svg(report: BenchReport) -> Markup:
    """Mean score against cost per task, a dot a team, the frontier joined by a line ('' if no cost known)."""
    priced = [(t.cost_per_task, t.score.mean, t) for t in report.teams if t.cost_per_task is not None]
    if not priced:
        return Markup("")
    low_cost, high_cost = min(c for c, _, _ in priced), max(c for c, _, _ in priced)
    low_score, high_score = min(s for _, s, _ in priced), max(s for _, s, _ in priced)

    def at(cost: float, score: float) -> tuple[str, str]:
        x = _PAD + (cost - low_cost) / ((high_cost - low_cost) or 1) * (_W - 2 * _PAD)
        y = _H - _PAD - (score - low_score) / ((high_score - low_score) or 1) * (_H - 2 * _PAD)
        return f"{x:.1f}", f"{y:.1f}"

    line = " ".join(",".join(at(c, s)) for c, s, t in sorted(priced, key=lambda p: p[:2]) if t.on_frontier)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="frontier-chart" viewBox="0 0 {_W} {_H}" '
        f'width="{_W}" height="{_H}" role="img" aria-label="Mean score by cost per task">',
        "<title>Cost–quality frontier</title>",
        f'<g {_FONT} fill="#333333"><text x="{_W // 2}" y="{_H - 10}" text-anchor="middle">cost per task '
        '(USD)</text><text x="12" y="20">mean score</text>',
        f'<polyline points="{line}" fill="none" stroke="#999999" stroke-width="1.5" stroke-dasharray="4 3"/>',
    ]
    for i, (cost, score, team) in enumerate(priced):
        x, y = at(cost, score)
        name = escape(strip_controls(team.team_name))
        out.append(f'<circle cx="{x}" cy="{y}" r="5" fill="{PALETTE[i % len(PALETTE)]}"/>')
        label = f"{name} ({score:.3g}, {cost:.4f})"
        out.append(f'<text x="{x}" y="{float(y) - 9:.1f}" text-anchor="middle">{label}</text>')
    return Markup("\n".join([*out, "</g></svg>"]))
