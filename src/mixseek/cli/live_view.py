"""The live teams × rounds table `mixseek exec` shows on a terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from mixseek.orchestrator.events import (
    Event,
    ExecutionFinished,
    ExecutionResumed,
    ExecutionStarted,
    ExecutionStopping,
    PairwiseCompared,
    PairwiseFinished,
    PairwiseStarted,
    TeamDecided,
    TeamRoundFinished,
    TeamRoundStarted,
)
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from mixseek.storage.views import ExecutionView

Clock = Callable[[], float]

UNFINISHED = ("running", "interrupted")
"""A stored round's status while it has no result: cut off by the interruption, it is run again."""

LEGEND = "→ goes on to the next round  ■ stops after this round  … still running"
"""What the marks of the cells mean, under the table."""


@dataclass
class _Cell:
    started: float
    status: str = "running"
    score: float | None = None
    tokens: int = 0
    elapsed: float | None = None
    decision: str | None = None


class LiveView:
    """An event sink that keeps the table current, built at Rich's refresh so running timers keep counting."""

    def __init__(
        self,
        console: Console,
        max_rounds: int,
        *,
        clock: Clock = time.monotonic,
        teams: Sequence[str] = (),
        stored: ExecutionView | None = None,
    ) -> None:
        """`teams` in display order; `stored`, a resumed execution's stored view, fills its rounds' cells."""
        self.console = console
        self.max_rounds = max_rounds
        self.clock = clock
        self.cells: dict[tuple[str, int], _Cell] = {}
        self.teams: list[str] = list(teams)
        self.stored = stored
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

    def note(self, line: str) -> None:
        """One line above the table, through the live display (a line written otherwise is overwritten)."""
        self.live.console.print(Text(strip_controls(line)), soft_wrap=True)

    def _apply(self, event: Event) -> None:
        now = self.clock()
        match event:
            case ExecutionStarted(teams=teams):
                self.teams = list(teams)
            case ExecutionResumed():
                self._fill_stored(now)
            case TeamRoundStarted(team_id=team, round_number=rnd):
                self._add_team(team)
                self.cells[(team, rnd)] = _Cell(started=now)
            case TeamRoundFinished(team_id=team, round_number=rnd):
                self._add_team(team)
                cell = self.cells.setdefault((team, rnd), _Cell(started=now))
                cell.status = event.status
                cell.score = event.score
                cell.tokens = event.tokens
                cell.elapsed = now - cell.started
            case TeamDecided(team_id=team, round_number=rnd):
                self._add_team(team)
                cell = self.cells.setdefault((team, rnd), _Cell(started=now, status="completed"))
                cell.decision = "→" if event.should_continue else "■"
            case PairwiseStarted(schedule=schedule, planned=planned, done=done):
                self.footer = f"pairwise ranking ({schedule}): {done}/{planned} comparisons"
            case PairwiseCompared(team_a=a, team_b=b, done=done, planned=planned):
                result = f"{event.winner} wins" if event.winner else "tie"
                self.footer = f"pairwise ranking: {done}/{planned} comparisons (last: {a} vs {b}, {result})"
            case PairwiseFinished(status=status, comparisons=done):
                leader = f", first: {event.leader}" if event.leader else ""
                self.footer = f"pairwise ranking {status}: {done} comparisons{leader}"
            case ExecutionStopping() | ExecutionFinished():
                self.footer = " ".join(f"{k}={v}" for k, v in event.details().items() if v is not None)
            case _:
                pass

    def _fill_stored(self, now: float) -> None:
        """The stored rounds of a resumed execution: not run again, so no event will fill their cells."""
        from mixseek.report.content import round_seconds, round_tokens

        for team in self.stored.teams if self.stored is not None else ():
            self._add_team(team.team_id)
            for stored in team.rounds:
                if stored.status in UNFINISHED:
                    continue
                decision = stored.judgment.should_continue
                self.cells[(team.team_id, stored.round_number)] = _Cell(
                    started=now,
                    status=stored.status,
                    score=stored.score,
                    tokens=round_tokens(stored) or 0,
                    elapsed=round_seconds(stored) or 0.0,
                    decision=None if decision is None else "→" if decision else "■",
                )

    def _add_team(self, team: str) -> None:
        if team not in self.teams:
            self.teams.append(team)

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
            table = Table(title="mixseek exec", title_justify="left", caption=LEGEND, caption_justify="left")
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
