"""The read model: stored executions as typed values for `mixseek runs`, `mixseek.runs` and the dashboard.
Lenient (unknown keys ignored) as data may be imported or older; listing types are in `overview`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from mixseek.llm.demo_model import DEMO_MODEL_NOTE
from mixseek.storage.models import ExecutionStatus, RoundStatusValue, StopReason
from mixseek.storage.overview import BestSubmission as BestSubmission
from mixseek.storage.overview import ExecutionOverview as ExecutionOverview
from mixseek.storage.overview import IsoTime as IsoTime
from mixseek.storage.overview import RankingEntry as RankingEntry
from mixseek.storage.overview import TeamStatus as TeamStatus
from mixseek.storage.overview import UsageTotals as UsageTotals
from mixseek.storage.overview import View
from mixseek.storage.overview import status_words as _status_words
from mixseek.storage.overview import stop_words as _stop_words
from mixseek.storage.pairwise_views import PairwiseView

# as stored, but `interrupted` for a round left running by an interrupted execution
RoundViewStatus = Literal[RoundStatusValue, "interrupted"]
TeamKind = Literal["selective", "broadcast", "workflow"]


class JudgeScore(View):
    """One judge of a panel metric on one round: its score and comment, or why it has none."""

    model: str
    score: float | None = None
    comment: str | None = None
    error: str | None = None


class MetricScore(View):
    """One metric's score of a round and comment; a panel's also its `judges` and `aggregate`."""

    score: float | None
    comment: str | None = None
    judges: list[JudgeScore] | None = None
    aggregate: str | None = None

    @model_serializer(mode="wrap")
    def _panel_keys_only_for_panels(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a one-model metric dumps as it always did
        data: dict[str, Any] = handler(self)
        if self.judges is None:
            data.pop("judges", None)
            data.pop("aggregate", None)
        return data


class FlaggedSubmission(View):
    """A round whose judges were further apart than the disagreement threshold."""

    team_id: str
    round_number: int
    spread: float = Field(description="highest minus lowest judge score")
    scores: list[float | None] = Field(description="each judge's score, in the order of the panel's judges")


class MetricAgreement(View):
    """How far a panel metric's judges agreed over an execution's submissions."""

    judges: list[str] = Field(description="the judge models, in panel order")
    aggregate: str | None = None
    submissions: int = Field(description="rounds that two or more judges scored: alpha's units")
    alpha: float | None = Field(
        description="Krippendorff's alpha (interval); None when undefined (fewer than 2 units, no variation)"
    )
    threshold: float = Field(description="score points of spread beyond which a round is flagged")
    flagged: list[FlaggedSubmission] = Field(default_factory=list)


class RoundJudgment(View):
    """The decision after a round, by a judgment or a rule (`exit_reason`); None while undecided."""

    should_continue: bool | None = None
    exit_reason: str | None = None
    reasoning: str | None = None
    confidence: float | None = None


class MemberAnswer(BaseModel):
    """One member's answer, dumped with exactly the stored keys (an export round-trips it)."""

    model_config = ConfigDict(frozen=True, extra="allow", defer_build=True)

    agent_name: str = ""
    agent_type: str = ""
    content: str = ""
    status: str = Field(default="", description='"SUCCESS" or "ERROR"')
    error_message: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime | None = None
    execution_time_ms: float | None = None
    step_id: str | None = Field(
        default=None, description="the workflow step of an executor's answer; absent for a leader team's"
    )

    @property
    def succeeded(self) -> bool:
        return self.status == "SUCCESS"

    @model_validator(mode="wrap")
    @classmethod
    def _lenient(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> MemberAnswer:
        # an imported value of another type is left out rather than failing the whole view
        try:
            return cast(MemberAnswer, handler(data))
        except ValidationError as exc:
            if not isinstance(data, Mapping):
                raise
            invalid = {error["loc"][0] for error in exc.errors() if error["loc"]}
            return cast(MemberAnswer, handler({k: v for k, v in data.items() if k not in invalid}))

    @model_serializer(mode="wrap")
    def _as_stored(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        stored = self.model_fields_set | set(self.model_extra or {})
        return {key: value for key, value in data.items() if key in stored}


class MemberCounts(View):
    total: int = 0
    succeeded: int = 0
    failed: int = 0


class RoundView(View):
    round_number: int
    status: RoundViewStatus
    score: float | None
    is_final: bool
    started_at: IsoTime | None
    ended_at: IsoTime | None
    metrics: dict[str, MetricScore]
    feedback: str | None
    judgment: RoundJudgment
    members: MemberCounts
    error: str | None
    submission: str | None
    submission_format: str | None
    member_submissions: list[MemberAnswer]
    usage: dict[str, Any] | None = Field(description="the round's usage parts (team, evaluation, ...)")


# RoundView fields that only a full export prints (`runs show` leaves them out)
ROUND_DETAIL_FIELDS = frozenset({"submission", "submission_format", "member_submissions", "usage"})


class TeamView(View):
    team_id: str
    team_name: str
    kind: TeamKind | None = Field(
        default=None,
        description="how the team wrote its submissions; None where the stored config does not say",
    )
    position: int | None = Field(description="1-based place on the leaderboard; None while unranked")
    status: TeamStatus
    rounds_completed: int
    best_round: int | None
    best_score: float | None
    exit_reason: str | None
    error: str | None
    rounds: list[RoundView]

    @property
    def status_words(self) -> str:
        """The status as a sentence says it: `interrupted after round 2` (its last scored round)."""
        if self.status != "interrupted":
            return self.status
        scored = [r.round_number for r in self.rounds if r.score is not None]
        if not scored:
            return "interrupted before any round was scored"
        return f"interrupted after round {max(scored)}"


class ExecutionOutcome(BaseModel):
    """What an execution came to, as `ExecutionSummary` and `ExecutionView` both say it (dumped in
    `_key_order`)."""

    model_config = ConfigDict(defer_build=True)
    _key_order: ClassVar[str] = ""

    execution_id: str
    user_prompt: str
    status: ExecutionStatus
    stop_reason: StopReason | None = None
    stop_detail: str | None = None
    degraded_reasons: list[str] = Field(default_factory=list)
    duration_seconds: float = Field(
        default=0.0,
        description="the time its processes ran the execution, summed over `exec` and each resume",
    )
    rounds_run: int = Field(default=0, description="the last round in which a submission was scored")
    leaderboard: list[RankingEntry] = Field(default_factory=list)
    best: BestSubmission | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    usage_by_site: dict[str, UsageTotals] = Field(default_factory=dict)
    pairwise: PairwiseView | None = None
    """The final pairwise ranking, when the execution had that stage."""
    demo_model: bool = Field(
        default=False,
        description="whether some role ran on the embedded demo model (local:smollm2), whose text "
        "and LLM scores are not meaningful",
    )
    scale: str = Field(
        default="0-100",
        exclude_if=lambda scale: scale == "0-100",  # said only when the scores are on another scale
        description='the scores\' scale: "0-100", "unbounded" or `{ min = …, max = … }`',
    )

    @property
    def out_of(self) -> str:
        """What follows a score in text: `/100` on the 0–100 scale, nothing on another."""
        return "/100" if self.scale == "0-100" else ""

    @property
    def degraded(self) -> bool:
        """Whether a role failed although the status may say `completed`."""
        return bool(self.degraded_reasons)

    @property
    def demo_model_note(self) -> str | None:
        """The one-line `note: demo model …` every surface shows for a demo-model run."""
        return DEMO_MODEL_NOTE if self.demo_model else None

    @model_serializer(mode="wrap")
    def _in_key_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {key: data[key] for key in self._key_order.split() if key in data} | data


class ExecutionView(ExecutionOutcome):
    """Everything stored about one execution, also while it runs (or `interrupted`, process gone)."""

    model_config = ConfigDict(frozen=True)
    _key_order = (
        "execution_id user_prompt status stop_reason stop_detail degraded_reasons started_at ended_at "
        "duration_seconds rounds_run leaderboard teams best usage usage_by_site usage_by_model agreement "
        "pairwise demo_model scale"
    )

    started_at: IsoTime
    ended_at: IsoTime | None
    teams: list[TeamView]
    usage_by_model: dict[str, UsageTotals]
    agreement: dict[str, MetricAgreement] = Field(
        default_factory=dict, description="per judge panel metric: inter-judge agreement, flagged rounds"
    )

    @property
    def stop_words(self) -> str | None:
        """Why it stopped, without repeating the status (`overview.stop_words`)."""
        return _stop_words(self.status, self.stop_reason, self.stop_detail)

    @property
    def status_words(self) -> str:
        """The status and why it stopped, each said once: `interrupted after round 2`."""
        return _status_words(self.status, self.stop_reason, self.stop_detail)

    @property
    def cost_usd(self) -> float | None:
        return self.usage.cost

    def document(self, *, details: bool = True) -> dict[str, Any]:
        """The JSON document of `runs export` (`details`) or `runs show` (without ROUND_DETAIL_FIELDS)."""
        if details:
            return self.model_dump(mode="json")
        exclude = {"teams": {"__all__": {"rounds": {"__all__": set(ROUND_DETAIL_FIELDS)}}}}
        return self.model_dump(mode="json", exclude=exclude)


class ExecutionProgress(View):
    """How far an execution has got, read cheaply: equal progress means the same rows (a live page)."""

    status: ExecutionStatus
    ended_at: IsoTime | None
    marks: tuple[int | None, ...] = Field(
        description="counts, latest ids and a checksum of the execution's round and usage rows"
    )
