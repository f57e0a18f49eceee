"""The read model: stored executions as typed values, for every reader alike.

`mixseek runs list|show|export`, the Python API's results and a dashboard all
read the same types, built in one place (`storage.read_model`) from the rows
and the summary an execution left. Dumped with `model_dump(mode="json")` they
give the documents `mixseek runs` prints; `RankingEntry.model_dump()` is the
ranking entry dict of the seeds (`{"team_id", "team_name", "max_score",
"total_rounds"}`).

The types are lenient where stored data may come from elsewhere (an imported
history, an older summary): unknown keys are ignored, missing ones default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from mixseek.storage.models import ExecutionStatus, LeaderBoardRow, RoundStatusValue, StopReason
from mixseek.storage.pairwise_views import PairwiseView

IsoTime = Annotated[
    datetime, PlainSerializer(lambda value: value.isoformat(), return_type=str, when_used="json")
]
"""A time that JSON shows as `datetime.isoformat()` gives it (`+00:00`, as `runs` always printed)."""

TeamStatus = Literal["completed", "failed", "stopped", "running", "interrupted", "partial_failure"]
"""A team's standing: its own end (completed, failed, or stopped by a judgment while the
execution goes on) or, while nothing ended it, the execution's status."""


TeamKind = Literal["selective", "broadcast", "workflow"]
"""How a team writes a round's submission: a leader calling the members it chooses, a leader after
every member answered, or a workflow's steps."""


class _View(BaseModel):
    # built on first use: `runs list` validates only overviews, not the whole read model
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class RankingEntry(_View):
    """One team on the leaderboard (DESIGN decision 6); a ranking lists them best first."""

    team_id: str
    team_name: str
    max_score: float
    total_rounds: int


class UsageTotals(_View):
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


class BestSubmission(_View):
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
        if not ranking:
            return None
        candidates = [r for r in rows if r.team_id == ranking[0].team_id]
        if not candidates:
            return None
        row = max(candidates, key=lambda r: (r.evaluation_score, r.round_number))
        return cls(
            team_id=row.team_id,
            team_name=row.team_name,
            round_number=row.round_number,
            score=row.evaluation_score,
            content=row.submission_content,
        )


class TeamStanding(_View):
    """How a team stands in (or ended) an execution."""

    team_id: str
    team_name: str
    status: TeamStatus
    rounds_completed: int = 0
    best_round: int | None = None
    best_score: float | None = None
    exit_reason: str | None = None
    error: str | None = None


class StoredSummary(_View):
    """What a finished execution's stored summary says that the rows alone do not."""

    stop_reason: StopReason | None = None
    stop_detail: str | None = None
    degraded_reasons: list[str] = Field(default_factory=list)
    best: BestSubmission | None = None
    teams: list[TeamStanding] = Field(default_factory=list)
    rounds_run: int = 0
    usage: UsageTotals = Field(default_factory=UsageTotals)
    duration_seconds: float = 0.0


class JudgeScore(_View):
    """One judge of a panel metric on one round: its score and comment, or why it has none."""

    model: str
    score: float | None = None
    comment: str | None = None
    error: str | None = None


class MetricScore(_View):
    """One metric's score of a round, with the evaluator's comment; a judge panel's metric also
    lists each judge (`judges`) and how their scores were combined (`aggregate`)."""

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


class FlaggedSubmission(_View):
    """A round whose judges were further apart than the disagreement threshold."""

    team_id: str
    round_number: int
    spread: float = Field(description="highest minus lowest judge score")
    scores: list[float | None] = Field(description="each judge's score, in the order of the panel's judges")


class MetricAgreement(_View):
    """How far a panel metric's judges agreed over an execution's submissions."""

    judges: list[str] = Field(description="the judge models, in panel order")
    aggregate: str | None = None
    submissions: int = Field(description="rounds that two or more judges scored: alpha's units")
    alpha: float | None = Field(
        description="Krippendorff's alpha (interval); None when undefined (fewer than 2 units, no variation)"
    )
    threshold: float = Field(description="score points of spread beyond which a round is flagged")
    flagged: list[FlaggedSubmission] = Field(default_factory=list)


class RoundJudgment(_View):
    """The decision after a round: a judgment (`reasoning`, `confidence`) or a rule
    (`exit_reason` min_rounds/max_rounds); all None while undecided."""

    should_continue: bool | None = None
    exit_reason: str | None = None
    reasoning: str | None = None
    confidence: float | None = None


class MemberAnswer(BaseModel):
    """One member's answer in a round, as the leader's record stored it (seed 004).

    Dumps exactly the keys the stored record had, so an export round-trips it."""

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
        # an imported answer with a value of another type is shown without that value
        # rather than failing the whole execution's view
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


class MemberCounts(_View):
    total: int = 0
    succeeded: int = 0
    failed: int = 0

    @classmethod
    def of(cls, answers: Sequence[MemberAnswer]) -> MemberCounts:
        succeeded = sum(1 for a in answers if a.succeeded)
        return cls(total=len(answers), succeeded=succeeded, failed=len(answers) - succeeded)


class RoundView(_View):
    """One team's round: its state, score per metric, judgment, members, and submission."""

    round_number: int
    status: RoundStatusValue
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


ROUND_DETAIL_FIELDS = frozenset({"submission", "submission_format", "member_submissions", "usage"})
"""RoundView fields that only a full export prints (`runs show` leaves them out)."""


class TeamView(_View):
    """A team in an execution: its standing, its place on the leaderboard, and its rounds."""

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


class ExecutionView(_View):
    """Everything stored about one execution, also while it runs.

    `status` is the lease-derived one: a `running` execution whose process is gone
    reads as `interrupted`. `stop_reason`, `stop_detail` and `degraded_reasons`
    exist once the execution has ended."""

    execution_id: str
    user_prompt: str
    status: ExecutionStatus
    stop_reason: StopReason | None
    stop_detail: str | None
    degraded_reasons: list[str]
    started_at: IsoTime
    ended_at: IsoTime | None
    duration_seconds: float
    rounds_run: int
    leaderboard: list[RankingEntry]
    teams: list[TeamView]
    best: BestSubmission | None
    usage: UsageTotals
    usage_by_site: dict[str, UsageTotals]
    usage_by_model: dict[str, UsageTotals]
    agreement: dict[str, MetricAgreement] = Field(
        default_factory=dict, description="per judge panel metric: inter-judge agreement, flagged rounds"
    )
    pairwise: PairwiseView | None = None
    """The final pairwise ranking, when the execution had that stage."""

    @property
    def degraded(self) -> bool:
        """Whether a role failed although the status may say `completed`."""
        return bool(self.degraded_reasons)

    @property
    def cost_usd(self) -> float | None:
        return self.usage.cost

    def document(self, *, details: bool = True) -> dict[str, Any]:
        """The JSON document of `runs export` (`details`) or `runs show` (without each
        round's submission, member answers and usage)."""
        if details:
            return self.model_dump(mode="json")
        exclude = {"teams": {"__all__": {"rounds": {"__all__": set(ROUND_DETAIL_FIELDS)}}}}
        return self.model_dump(mode="json", exclude=exclude)


class ExecutionOverview(_View):
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


class ExecutionProgress(_View):
    """How far an execution has got, read cheaply (no submission or member text): two reads that
    give equal progress saw the same rows, so a live page has nothing new to show."""

    status: ExecutionStatus
    ended_at: IsoTime | None
    marks: tuple[int | None, ...] = Field(
        description="counts, latest ids and a checksum of the execution's round and usage rows"
    )
