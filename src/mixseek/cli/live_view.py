"""The live teams × rounds table `mixseek exec` shows on a terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from mixseek.orchestrator.events import Event
from mixseek.text_safety import strip_controls

Clock = Callable[[], float]


@dataclass
class _Cell:
    started: float
    status: str = "running"
    score: float | None = None
    tokens: int = 0
    elapsed: float | None = None
    decision: str | None = None


class LiveView:
    """An event sink that keeps the table current.

    The table is built when Rich refreshes the screen (four times a second), not when an event
    arrives, so a running cell's timer keeps counting between events."""

    def __init__(self, console: Console, max_rounds: int, *, clock: Clock = time.monotonic) -> None:
        self.console = console
        self.max_rounds = max_rounds
        self.clock = clock
        self.cells: dict[tuple[str, int], _Cell] = {}
        self.teams: list[str] = []
        self.footer = ""
        # events arrive on the event loop's thread, refreshes on Rich's
        self._lock = threading.Lock()
        self.live = Live(console=console, refresh_per_second=4, transient=False, get_renderable=self.render)

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(None, None, None)

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._apply(event)
        self.live.refresh()

    def _apply(self, event: Event) -> None:
        if event.kind == "execution_started":
            self.teams = list(event.data.get("teams", []))
        team, rnd = event.team_id, event.round_number
        if team is not None and team not in self.teams:
            self.teams.append(team)
        now = self.clock()
        if event.kind == "team_round_started" and team and rnd:
            self.cells[(team, rnd)] = _Cell(started=now)
        elif event.kind == "team_round_finished" and team and rnd:
            cell = self.cells.setdefault((team, rnd), _Cell(started=now))
            cell.status = str(event.data.get("status"))
            score = event.data.get("score")
            cell.score = float(score) if isinstance(score, int | float) else None
            tokens = event.data.get("tokens")
            cell.tokens = int(tokens) if isinstance(tokens, int) else 0
            cell.elapsed = now - cell.started
        elif event.kind == "team_decided" and team and rnd:
            cell = self.cells.setdefault((team, rnd), _Cell(started=now, status="completed"))
            cell.decision = "→" if event.data.get("should_continue") else "■"
        elif event.kind in ("execution_stopping", "execution_finished"):
            self.footer = " ".join(f"{k}={v}" for k, v in event.data.items() if v is not None)

    def _cell_text(self, cell: _Cell | None, now: float) -> Text:
        if cell is None:
            return Text("")
        elapsed = cell.elapsed if cell.elapsed is not None else now - cell.started
        if cell.status == "running":
            return Text(f"… {elapsed:.0f}s", style="yellow")
        if cell.status == "completed" and cell.score is not None:
            mark = f" {cell.decision}" if cell.decision else ""
            return Text(f"{cell.score:.1f}{mark}\n{cell.tokens} tok {elapsed:.0f}s", style="green")
        return Text(f"{strip_controls(cell.status)}\n{elapsed:.0f}s", style="red")

    def render(self) -> RenderableType:
        """The table as of now (Rich calls this on every refresh)."""
        with self._lock:
            now = self.clock()
            table = Table(title="mixseek exec", title_justify="left")
            table.add_column("team")
            for r in range(1, self.max_rounds + 1):
                table.add_column(f"round {r}", justify="center")
            for team in self.teams:
                table.add_row(
                    Text(strip_controls(team)),
                    *[self._cell_text(self.cells.get((team, r)), now) for r in range(1, self.max_rounds + 1)],
                )
            footer = strip_controls(self.footer)
        return Group(table, Text(footer)) if footer else table
