"""The live teams × rounds table `mixseek exec` shows on a terminal."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mixseek.orchestrator.events import Event


@dataclass
class _Cell:
    status: str = "running"
    score: float | None = None
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    elapsed: float | None = None
    decision: str | None = None


class LiveView:
    """An event sink that redraws the table on every event."""

    def __init__(self, console: Console, max_rounds: int) -> None:
        self.console = console
        self.max_rounds = max_rounds
        self.cells: dict[tuple[str, int], _Cell] = {}
        self.teams: list[str] = []
        self.footer = ""
        self.live = Live(self.render(), console=console, refresh_per_second=4, transient=False)

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.update(self.render())
        self.live.__exit__(None, None, None)

    def __call__(self, event: Event) -> None:
        if event.kind == "execution_started":
            self.teams = list(event.data.get("teams", []))
        team, rnd = event.team_id, event.round_number
        if team is not None and team not in self.teams:
            self.teams.append(team)
        if event.kind == "team_round_started" and team and rnd:
            self.cells[(team, rnd)] = _Cell()
        elif event.kind == "team_round_finished" and team and rnd:
            cell = self.cells.setdefault((team, rnd), _Cell())
            cell.status = str(event.data.get("status"))
            score = event.data.get("score")
            cell.score = float(score) if isinstance(score, int | float) else None
            tokens = event.data.get("tokens")
            cell.tokens = int(tokens) if isinstance(tokens, int) else 0
            cell.elapsed = time.monotonic() - cell.started
        elif event.kind == "team_decided" and team and rnd:
            cell = self.cells.setdefault((team, rnd), _Cell(status="completed"))
            cell.decision = "→" if event.data.get("should_continue") else "■"
        elif event.kind in ("execution_stopping", "execution_finished"):
            self.footer = " ".join(f"{k}={v}" for k, v in event.data.items() if v is not None)
        self.live.update(self.render())

    def _cell_text(self, cell: _Cell | None) -> Text:
        if cell is None:
            return Text("")
        elapsed = cell.elapsed if cell.elapsed is not None else time.monotonic() - cell.started
        if cell.status == "running":
            return Text(f"… {elapsed:.0f}s", style="yellow")
        if cell.status == "completed" and cell.score is not None:
            mark = f" {cell.decision}" if cell.decision else ""
            return Text(f"{cell.score:.1f}{mark}\n{cell.tokens} tok {elapsed:.0f}s", style="green")
        return Text(f"{cell.status}\n{elapsed:.0f}s", style="red")

    def render(self) -> RenderableType:
        table = Table(title="mixseek exec", title_justify="left")
        table.add_column("team")
        for r in range(1, self.max_rounds + 1):
            table.add_column(f"round {r}", justify="center")
        for team in self.teams:
            table.add_row(
                escape(team),
                *[self._cell_text(self.cells.get((team, r))) for r in range(1, self.max_rounds + 1)],
            )
        return Group(table, Text(self.footer)) if self.footer else table
