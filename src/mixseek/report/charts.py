"""The score-by-round chart, one inline SVG for the dashboard and the HTML report: presentation attributes (no
script or inline style: the report reads without them, the CSP allows none); text escaped; fixed decimals."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from mixseek.storage.views import ExecutionView
from mixseek.text_safety import strip_controls

# Tableau 10 (distinguishable, print-safe); past ten teams another dash: forty lines stay apart
PALETTE: tuple[str, ...] = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
DASHES: tuple[str | None, ...] = (None, "6 3", "2 3", "8 3 2 3")

_MARGIN_LEFT, _MARGIN_RIGHT, _MARGIN_TOP, _MARGIN_BOTTOM = 44, 16, 14, 38
_INSET = 12  # keeps the first and last round's markers off the axes
_LEGEND_COLUMN, _LEGEND_ROW = 180, 18
_LEGEND_NAME_CHARS = 24
_MAX_X_LABELS = 20
_FONT = 'font-family="sans-serif" font-size="11"'
_INK, _GRID = "#333333", "#dddddd"


@dataclass(frozen=True)
class _Series:
    team_id: str
    name: str
    points: list[tuple[int, float]]  # (round, score), by round
    colour: str
    dash: str | None


def _n(value: float) -> str:
    """A coordinate: one decimal, so that output does not depend on float noise."""
    return f"{value:.1f}"


def _series(view: ExecutionView) -> list[_Series]:
    """Every team, best first, with its scored rounds; colours follow team ids, steady as a board reorders."""
    style = {team_id: i for i, team_id in enumerate(sorted(t.team_id for t in view.teams))}
    return [
        _Series(
            team_id=team.team_id,
            name=strip_controls(team.team_name),
            points=sorted((r.round_number, r.score) for r in team.rounds if r.score is not None),
            colour=PALETTE[style[team.team_id] % len(PALETTE)],
            dash=DASHES[(style[team.team_id] // len(PALETTE)) % len(DASHES)],
        )
        for team in view.teams
    ]


def _x_labels(last_round: int) -> range:
    step = max(1, math.ceil(last_round / _MAX_X_LABELS))
    return range(1, last_round + 1, step)


def _short(name: str) -> str:
    return name if len(name) <= _LEGEND_NAME_CHARS else name[: _LEGEND_NAME_CHARS - 1] + "…"


def _dash_attr(dash: str | None) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""


def score_chart_svg(view: ExecutionView, *, width: int = 720, height: int = 320) -> Markup:
    """Each team's score by round as an inline SVG line chart, the legend below growing with the teams."""
    series = _series(view)
    last_round = max([view.rounds_run, *(number for s in series for number, _ in s.points)], default=0)
    last_round = max(last_round, 1)
    left, right = _MARGIN_LEFT, width - _MARGIN_RIGHT
    top, bottom = _MARGIN_TOP, height - _MARGIN_BOTTOM

    def x(round_number: int) -> float:
        if last_round == 1:
            return (left + right) / 2
        return left + _INSET + (round_number - 1) * (right - left - 2 * _INSET) / (last_round - 1)

    low, high, ticks = _axis([score for s in series for _, score in s.points])

    def y(score: float) -> float:
        return bottom - (score - low) / (high - low) * (bottom - top)

    columns = max(1, (width - left) // _LEGEND_COLUMN)
    legend_rows = math.ceil(len(series) / columns)
    total_height = height + legend_rows * _LEGEND_ROW + (8 if series else 0)

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="score-chart" viewBox="0 0 {width} {total_height}" '
        f'width="{width}" height="{total_height}" role="img" aria-label="Score by round">',
        "<title>Score by round</title>",
        f'<g class="chart-axes" {_FONT} fill="{_INK}">',
    ]
    for score in ticks:
        out.append(
            f'<line class="chart-grid" x1="{left}" y1="{_n(y(score))}" x2="{right}" y2="{_n(y(score))}" '
            f'stroke="{_GRID}" stroke-width="1"/>'
        )
        out.append(f'<text x="{left - 6}" y="{_n(y(score) + 4)}" text-anchor="end">{score:g}</text>')
    out.append(
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="{_INK}" stroke-width="1"/>'
    )
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="{_INK}" stroke-width="1"/>')
    for number in _x_labels(last_round):
        out.append(f'<text x="{_n(x(number))}" y="{bottom + 15}" text-anchor="middle">{number}</text>')
    out.append(f'<text x="{_n((left + right) / 2)}" y="{bottom + 31}" text-anchor="middle">round</text>')
    out.append(
        f'<text x="12" y="{_n((top + bottom) / 2)}" text-anchor="middle" '
        f'transform="rotate(-90 12 {_n((top + bottom) / 2)})">score</text>'
    )
    if not any(s.points for s in series):
        out.append(
            f'<text class="chart-empty" x="{_n((left + right) / 2)}" y="{_n((top + bottom) / 2)}" '
            'text-anchor="middle">No scores yet</text>'
        )
    out.append("</g>")

    for s in series:
        out.append(_line(s, x, y))
    out.extend(_legend(series, columns, left, height))
    out.append("</svg>")
    return Markup("\n".join(out))


def _axis(scores: Sequence[float]) -> tuple[float, float, list[float]]:
    """The y axis's ends and ticks: 0–100 by 20 when the scores fit, else their range in round steps."""
    low, high = min(scores, default=0.0), max(scores, default=100.0)
    if low >= 0.0 and high <= 100.0:
        return 0.0, 100.0, [float(t) for t in range(0, 101, 20)]
    rough = max(high - low, 1.0) / 5
    magnitude = 10 ** math.floor(math.log10(rough))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= rough)
    start = math.floor(low / step) * step
    ticks = [start + i * step for i in range(max(2, math.ceil((high - start) / step) + 1))]
    return ticks[0], ticks[-1], ticks


def _line(s: _Series, x: Callable[[int], float], y: Callable[[float], float]) -> str:
    team = escape(s.name)
    points = " ".join(f"{_n(x(number))},{_n(y(score))}" for number, score in s.points)
    parts = [
        f'<g class="chart-series" data-team="{escape(s.team_id)}">',
        f'<polyline points="{points}" fill="none" stroke="{s.colour}" stroke-width="2"'
        f'{_dash_attr(s.dash)} stroke-linejoin="round"/>',
    ]
    for number, score in s.points:
        parts.append(
            f'<circle cx="{_n(x(number))}" cy="{_n(y(score))}" r="3.5" fill="{s.colour}">'
            f"<title>{team}, round {number}: {score:.1f}</title></circle>"
        )
    parts.append("</g>")
    return "".join(parts)


def _legend(series: Sequence[_Series], columns: int, left: int, top: int) -> list[str]:
    if not series:
        return []
    out = [f'<g class="chart-legend" {_FONT} fill="{_INK}">']
    for i, s in enumerate(series):
        row, column = divmod(i, columns)
        lx = left + column * _LEGEND_COLUMN
        ly = top + 4 + row * _LEGEND_ROW
        out.append(
            f"<g><title>{escape(s.name)}</title>"
            f'<line x1="{lx}" y1="{ly + 5}" x2="{lx + 22}" y2="{ly + 5}" stroke="{s.colour}" '
            f'stroke-width="2"{_dash_attr(s.dash)}/>'
            f'<circle cx="{lx + 11}" cy="{ly + 5}" r="3.5" fill="{s.colour}"/>'
            f'<text x="{lx + 28}" y="{ly + 9}">{escape(_short(s.name))}</text></g>'
        )
    out.append("</g>")
    return out
