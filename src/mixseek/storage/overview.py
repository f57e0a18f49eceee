"""An execution at a glance: its listing overview and stored summary, apart so `runs list` loads no more."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from mixseek.storage.models import ExecutionStatus, LeaderBoardRow, StopReason

# JSON shows `datetime.isoformat()` (`+00:00`, as `runs` always printed)
IsoTime = Annotated[
    datetime, PlainSerializer(lambda value: value.isoformat(), return_type=str, when_used="json")
]
# a team's own end (stopped: by a judgment), or while nothing ended it the execution's status
TeamStatus = Literal["completed", "failed", "stopped", "running", "interrupted", "partial_failure"]


def stop_words(status: str, stop_reason: str | None, stop_detail: str | None) -> str | None:
    """Why an execution stopped, not its status (`finished`, `budget: DETAIL`, `after round 2`), else None."""
    if stop_reason is None:
        return None
    if stop_reason == status:
        return stop_detail if stop_detail and stop_detail != status else None
    return f"{stop_reason}: {stop_detail}" if stop_detail else stop_reason


def status_words(status: str, stop_reason: str | None, stop_detail: str | None) -> str:
    """An execution's status and why it stopped, each said once: `interrupted after round 2`."""
    words = stop_words(status, stop_reason, stop_detail)
    if words is None:
        return status
    return f"{status} {words}" if stop_reason == status else f"{status} ({words})"


class View(BaseModel):
    """Base of the read model's types: immutable, lenient about unknown keys, built on first use."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class RankingEntry(View):
    """One team on the leaderboard; a ranking lists them best first."""

    team_id: str
    team_name: str
    max_score: float
    total_rounds: int


class UsageTotals(View):
    """Summed model usage; `cost` (USD) only where the prices of every model were known."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @model_serializer(mode="wrap")
    def _unknown_cost_left_out(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # the stored and printed form has no "cost" key when no cost is known
        data: dict[str, Any] = handler(self)
        if self.cost is None:
            data.pop("cost", None)
        return data


class BestSubmission(View):
    """The winning round: the top-ranked team's best round."""

    team_id: str
    team_name: str
    round_number: int
    score: float
    content: str

    @classmethod
    def from_board(
        cls, ranking: Sequence[RankingEntry], rows: Sequence[LeaderBoardRow]
    ) -> BestSubmission | None:
        """The ranking's top team's best round (its best score, the later round on a tie)."""
        candidates = [r for r in rows if ranking and r.team_id == ranking[0].team_id]
        if not candidates:
            return None
        row = max(candidates, key=lambda r: (r.evaluation_score, r.round_number))
        names = row.model_dump(include={"team_id", "team_name", "round_number"})
        return cls(**names, score=row.evaluation_score, content=row.submission_content)


class TeamStanding(View):
    """How a team stands in (or ended) an execution."""

    team_id: str
    team_name: str
    status: TeamStatus
    rounds_completed: int = 0
    best_round: int | None = None
    best_score: float | None = None
    exit_reason: str | None = None
    error: str | None = None


class StoredSummary(View):
    """What a finished execution's stored summary says that the rows alone do not."""

    stop_reason: StopReason | None = None
    stop_detail: str | None = None
    degraded_reasons: list[str] = Field(default_factory=list)
    best: BestSubmission | None = None
    teams: list[TeamStanding] = Field(default_factory=list)
    rounds_run: int = 0
    usage: UsageTotals = Field(default_factory=UsageTotals)
    duration_seconds: float = 0.0


class ExecutionOverview(View):
    """One execution in a listing (`runs list`)."""

    execution_id: str
    status: ExecutionStatus
    user_prompt: str
    started_at: IsoTime
    duration_seconds: float
    best_team: str | None
    best_score: float | None
    rounds_run: int
    total_tokens: int
    # Shown by the dashboard; left out of dumps, so the `runs list` document stays as it was.
    best_team_name: str | None = Field(default=None, exclude=True)
    team_count: int = Field(default=0, exclude=True)
    cost: float | None = Field(default=None, exclude=True, description="USD, where it is known")
