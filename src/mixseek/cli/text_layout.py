"""Plain-text layout shared by `runs list`, `runs show` and the Markdown export (aligned columns, times,
scores, the `runs list` table), apart from `runs_text` so that listing loads less."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len

if TYPE_CHECKING:
    from mixseek.storage.overview import ExecutionOverview


def columns(rows: list[list[str]], indent: str = "") -> list[str]:
    """Rows as left-aligned columns two spaces apart (by display width), no trailing blanks."""
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    return [
        indent
        + "  ".join(
            value + " " * (widths[i] - cell_len(value)) if i < len(row) - 1 else value
            for i, value in enumerate(row)
        )
        for row in rows
    ]


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else "-"


def score_text(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def list_lines(entries: list[ExecutionOverview]) -> list[str]:
    header = [
        "execution",
        "status",
        "started (UTC)",
        "duration",
        "best team",
        "best score",
        "rounds",
        "tokens",
    ]
    rows = [
        [
            e.execution_id,
            e.status,
            when(e.started_at),
            f"{e.duration_seconds:.1f} s",
            e.best_team or "-",
            score_text(e.best_score),
            str(e.rounds_run),
            str(e.total_tokens),
        ]
        for e in entries
    ]
    return columns([header, *rows])
