"""The result of one execution, as printed by `mixseek exec` and stored with it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from mixseek.exit_codes import ExitCode
from mixseek.llm.demo_model import DEMO_MODEL_NOTE
from mixseek.storage.models import ExecutionStatus, FinalStatus, RoundStatusRecord, StopReason
from mixseek.storage.pairwise_views import PairwiseView
from mixseek.storage.views import BestSubmission, RankingEntry, TeamStanding, UsageTotals

__all__ = [
    "EXIT_CODES",
    "BestSubmission",
    "ExecutionStatus",
    "ExecutionSummary",
    "FinalStatus",
    "StopReason",
    "SummaryTeamStatus",
    "TeamSummary",
    "degraded_reasons",
]

EXIT_CODES: dict[str, ExitCode] = {
    "completed": ExitCode.SUCCESS,
    "partial_failure": ExitCode.PARTIAL_FAILURE,
    "failed": ExitCode.FAILURE,
    "interrupted": ExitCode.INTERRUPTED,
    # completed, but a role the result depends on failed (see `degraded_reasons`)
    "degraded": ExitCode.PARTIAL_FAILURE,
}
"""The exit code of `mixseek exec` for each final status (the codes are `mixseek.exit_codes`)."""


def degraded_reasons(statuses: Iterable[RoundStatusRecord]) -> list[str]:
    """What went wrong although every team finished: failed judgments.

    A failed judgment stops its team as if the judge had said so, so the run still
    ends `completed`; a script must not take that for a clean result. Read from the
    stored rounds, so a resumed execution counts the judgments of its earlier runs.
    (A failed metric fails its team's round, which the status already shows.)"""
    judged = [
        s
        for s in statuses
        if s.status == "completed"
        and (s.exit_reason in ("judgment", "judgment_failed") or s.judgment_confidence is not None)
    ]
    failed = sum(1 for s in judged if s.exit_reason == "judgment_failed")
    if not failed:
        return []
    if failed == len(judged):
        return [f"every judgment failed ({failed} of {failed}); each team stopped without a verdict"]
    return [f"{failed} of {len(judged)} judgments failed"]


SummaryTeamStatus = Literal["completed", "failed", "stopped", "interrupted"]
"""How a team ended: `interrupted` when the execution's interruption cut its rounds off."""


class TeamSummary(TeamStanding):
    """How a team ended, as the orchestrator reports it (a stop by judgment is `completed`,
    with its `exit_reason`; a team whose rounds an interruption cut off is `interrupted`)."""

    status: SummaryTeamStatus


class ExecutionSummary(BaseModel):
    """The result of one execution (what `Mixseek.run` returns and `mixseek exec` prints): the
    winning submission, the leaderboard (best first), how each team ended, usage and cost."""

    execution_id: str
    user_prompt: str
    status: FinalStatus
    stop_reason: StopReason
    stop_detail: str | None = None
    best: BestSubmission | None = None
    leaderboard: list[RankingEntry] = Field(default_factory=list)
    teams: list[TeamSummary] = Field(default_factory=list)
    rounds_run: int = Field(default=0, description="the last round in which a submission was scored")
    usage: UsageTotals = Field(default_factory=UsageTotals)
    usage_by_site: dict[str, UsageTotals] = Field(default_factory=dict)
    cost_usd: float | None = None
    duration_seconds: float = Field(
        default=0.0,
        description="the time its processes ran the execution, summed over `exec` and each resume",
    )
    degraded_reasons: list[str] = Field(default_factory=list)
    pairwise: PairwiseView | None = None
    """The final pairwise ranking (`configs/pairwise.toml`), when that stage is enabled."""
    demo_model: bool = Field(
        default=False,
        description="whether some role ran on the embedded demo model (local:smollm2), whose text "
        "and LLM scores are not meaningful",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def degraded(self) -> bool:
        """Whether a role failed although the status may say `completed`."""
        return bool(self.degraded_reasons)

    @property
    def demo_model_note(self) -> str | None:
        """The one-line `note: demo model …` every surface shows for a demo-model run."""
        return DEMO_MODEL_NOTE if self.demo_model else None

    @property
    def winner(self) -> BestSubmission | None:
        """The winning submission (`best`): the leaderboard's first team's best round; None when
        no round was scored."""
        return self.best

    @property
    def exit_code(self) -> int:
        if self.status == "completed" and self.degraded:
            return EXIT_CODES["degraded"]
        return EXIT_CODES[self.status]
