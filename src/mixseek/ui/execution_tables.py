"""The execution page's two big tables, the teams × rounds grid and the judgments, as rows of
ready-made strings.

An execution of 64 teams × 10 rounds has 640 cells and up to 640 judgments: formatting them here,
once, and giving the templates plain strings to print keeps the page within its budget
(`bench/ui_render.py`): a template calling functions and filters per cell costs twice as much.
The strings are text, not markup; the templates escape them like everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mixseek.report import content, formatting
from mixseek.storage.views import ExecutionView
from mixseek.text_safety import strip_controls


@dataclass(frozen=True, slots=True)
class Cell:
    """One team's round in the grid; `href` is None where the team ran no such round."""

    round_number: int
    css: str = "cell cell-none"
    href: str | None = None
    title: str | None = None
    score: str = ""
    status: str = ""
    tokens: str = ""
    time: str = ""


@dataclass(frozen=True, slots=True)
class GridLine:
    team_id: str
    name: str
    status: str
    exit_reason: str | None
    cells: list[Cell]


@dataclass(frozen=True, slots=True)
class JudgmentLine:
    team_id: str
    name: str
    round_number: int
    decision: str
    by: str
    confidence: str
    reasoning: str


def _names(view: ExecutionView) -> dict[str, str]:
    return {team.team_id: strip_controls(team.team_name) for team in view.teams}


def grid_lines(
    view: ExecutionView, submission_url: Callable[[str, int], str]
) -> tuple[list[int], list[GridLine]]:
    """The grid's round numbers and its lines, teams in the view's order."""
    grid = content.round_grid(view)
    names = _names(view)
    lines = []
    for row in grid.rows:
        team = row.team
        cells = []
        for number, r in zip(grid.round_numbers, row.cells, strict=True):
            if r is None:
                cells.append(Cell(number))
                continue
            tokens = content.round_tokens(r)
            cells.append(
                Cell(
                    number,
                    css=f"cell cell-{r.status} best"
                    if number == team.best_round
                    else f"cell cell-{r.status}",
                    href=submission_url(team.team_id, number),
                    title=strip_controls(r.error) if r.error else None,
                    score=formatting.score(r.score),
                    status=r.status,
                    tokens=formatting.MISSING if tokens is None else f"{formatting.tokens(tokens)} tokens",
                    time=formatting.duration(content.round_seconds(r)),
                )
            )
        lines.append(GridLine(team.team_id, names[team.team_id], team.status, team.exit_reason, cells))
    return grid.round_numbers, lines


def judgment_lines(view: ExecutionView) -> list[JudgmentLine]:
    """Every decided round's decision, team by team (in the view's order), round by round."""
    names = _names(view)
    return [
        JudgmentLine(
            j.team.team_id,
            names[j.team.team_id],
            j.round_number,
            j.decision,
            j.exit_reason or "judgment",
            formatting.confidence(j.confidence),
            strip_controls(j.reasoning) if j.reasoning else "",
        )
        for j in content.judgment_rows(view)
    ]
