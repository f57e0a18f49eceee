"""The result of one execution, as printed by `mixseek exec` and stored with it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field, computed_field

from mixseek.exit_codes import ExitCode
from mixseek.storage.models import ExecutionStatus as ExecutionStatus  # re-exported
from mixseek.storage.models import FinalStatus, RoundStatusRecord
from mixseek.storage.models import StopReason as StopReason  # re-exported
from mixseek.storage.overview import BestSubmission as BestSubmission  # re-exported
from mixseek.storage.overview import TeamStanding
from mixseek.storage.views import ExecutionOutcome

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
    """Failed judgments, which stop their team as if the judge had said so: a run still ends
    `completed`, and a script must not take it for a clean one (earlier runs' rounds count too)."""
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
    """How a team ended, as the orchestrator reports it (a stop by judgment is `completed`)."""

    status: SummaryTeamStatus


class ExecutionSummary(ExecutionOutcome):
    """The result of one execution (what `Mixseek.run` returns and `mixseek exec` prints): the
    winning submission, the leaderboard (best first), how each team ended, usage and cost."""

    _key_order = (
        "execution_id user_prompt status stop_reason stop_detail best leaderboard teams rounds_run usage "
        "usage_by_site cost_usd duration_seconds degraded_reasons pairwise demo_model scale degraded"
    )

    status: FinalStatus
    stop_reason: StopReason
    teams: list[TeamSummary] = Field(default_factory=list)
    cost_usd: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def degraded(self) -> bool:
        """Whether a role failed although the status may say `completed`."""
        return bool(self.degraded_reasons)

    @property
    def winner(self) -> BestSubmission | None:
        """The winning submission (`best`); None when no round was scored."""
        return self.best

    @property
    def exit_code(self) -> int:
        if self.status == "completed" and self.degraded:
            return EXIT_CODES["degraded"]
        return EXIT_CODES[self.status]
