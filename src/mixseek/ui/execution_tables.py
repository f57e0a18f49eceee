"""The execution page's two big tables (teams × rounds grid, judgments) as ready-made HTML rows, one
format string each (a template spends most of the page's budget on 640 cells); store text is escaped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup, escape

from mixseek.report import content, formatting
from mixseek.storage.views import ExecutionView, RoundView
from mixseek.text_safety import strip_controls

_EMPTY_CELL = '<td class="cell cell-none" data-round="{}">–</td>'


@dataclass(frozen=True, slots=True)
class GridLine:
    """One team's line of the grid: its heading's texts, and its cells as HTML."""

    team_id: str
    name: str
    status: str
    exit_reason: str | None
    cells: Markup


def _names(view: ExecutionView) -> dict[str, str]:
    return {team.team_id: strip_controls(team.team_name) for team in view.teams}


def _cell(round_view: RoundView, best: bool, href: str) -> str:
    """A team round's cell: its score, status, tokens and time, linking to its submission."""
    status = escape(round_view.status)
    tokens = content.round_tokens(round_view)
    error = strip_controls(round_view.error) if round_view.error else ""
    title = f' title="{escape(error)}"' if error else ""
    return (
        f'<td class="cell cell-{status}{" best" if best else ""}" data-round="{round_view.round_number}">'
        f'<a href="{escape(href)}"{title}>'
        f'<span class="cell-score">{formatting.score(round_view.score)}</span> '
        f'<span class="cell-status status status-{status}">{status}</span> '
        f'<span class="cell-tokens">'
        f"{formatting.MISSING if tokens is None else formatting.tokens(tokens) + ' tokens'}</span> "
        f'<span class="cell-time">{formatting.duration(content.round_seconds(round_view))}</span></a></td>'
    )


def grid_lines(
    view: ExecutionView, submission_url: Callable[[str, int], str]
) -> tuple[list[int], list[GridLine]]:
    grid = content.round_grid(view)
    names = _names(view)
    lines = []
    for row in grid.rows:
        team = row.team
        cells = [
            _EMPTY_CELL.format(number)
            if r is None
            else _cell(r, number == team.best_round, submission_url(team.team_id, number))
            for number, r in zip(grid.round_numbers, row.cells, strict=True)
        ]
        lines.append(
            GridLine(
                team.team_id, names[team.team_id], team.status, team.exit_reason, Markup("\n".join(cells))
            )
        )
    return grid.round_numbers, lines


def judgment_rows(view: ExecutionView) -> Markup:
    """Every decided round's decision as a table row, team by team, round by round."""
    names = {team_id: escape(name) for team_id, name in _names(view).items()}
    ids = {team_id: escape(team_id) for team_id in names}
    rows = [
        f'<tr data-team="{ids[j.team.team_id]}" data-round="{j.round_number}">'
        f'<td><span class="team-name">{names[j.team.team_id]}</span></td>'
        f'<td class="num">{j.round_number}</td><td>{escape(j.decision)}</td>'
        f"<td>{escape(j.exit_reason or 'judgment')}</td>"
        f'<td class="num">{formatting.confidence(j.confidence)}</td>'
        f'<td class="reasoning">{escape(strip_controls(j.reasoning)) if j.reasoning else ""}</td></tr>'
        for j in content.judgment_rows(view)
    ]
    return Markup("\n".join(rows))
