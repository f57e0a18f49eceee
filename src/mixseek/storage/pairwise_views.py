"""The final pairwise stage as readers see it: comparisons, the Bradley–Terry ranking, how it went."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mixseek.stats.judge_bias import Rate, flip_rate, won_by

Verdict = Literal["A", "B", "tie"]  # the submission shown as A, the one shown as B, or neither
# "failed": a judge error left comparisons out; "skipped": fewer than two teams
PairwiseStatus = Literal["completed", "budget", "failed", "skipped", "interrupted", "running"]


class _PairwiseView(BaseModel):
    # built on first use, as `storage.views`: `runs list` reads none of them
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class PairwiseComparison(_PairwiseView):
    """Two teams' best submissions judged in both orders; `outcome` is team_a's: 1 or 0 when both
    orders agree, else 0.5 (a tie, or a verdict that flips with the order: position bias)."""

    sequence: int
    team_a: str
    team_b: str
    round_a: int
    round_b: int
    verdict_a_first: Verdict
    verdict_b_first: Verdict
    outcome: float
    reasoning_a_first: str | None = None
    reasoning_b_first: str | None = None

    @property
    def winner(self) -> str | None:
        """The team both orders preferred; None for a tie."""
        return self.team_a if self.outcome == 1.0 else self.team_b if self.outcome == 0.0 else None


class PairwiseStanding(_PairwiseView):
    """One team in the pairwise ranking: centred log-strength, bootstrap interval, wins (a tie half)."""

    rank: int
    team_id: str
    team_name: str
    strength: float
    ci_low: float
    ci_high: float
    wins: float
    matches: int
    score_rank: int | None = None


class JudgeBias(_PairwiseView):
    """How the judge's verdicts lean, measured on its comparisons (README: Judge bias)."""

    flips: Rate  # comparisons whose verdict changes with the order
    longer_wins: Rate  # decisive comparisons of unequal lengths won by the longer submission
    own_teams: list[str] = Field(default_factory=list)  # teams with the judge's model (leader or member)
    own_wins: Rate | None = None  # decisive comparisons of an own team with another, won by the own team
    own_wins_by_score: Rate | None = None  # the same comparisons, the own team ahead in the score ranking


class PairwiseView(_PairwiseView):
    """The pairwise stage of one execution."""

    status: PairwiseStatus
    detail: str | None = None
    model: str = ""
    schedule: str = ""
    planned: int = 0  # comparisons the schedule chose (two model calls each)
    failed: int = 0  # comparisons left out as the judge failed after its retries
    ranking: list[PairwiseStanding] = Field(default_factory=list)
    ranked_by: Literal["plain", "length_controlled"] = "plain"  # `[pairwise] ranking`: what `ranking` is
    controlled: list[PairwiseStanding] = Field(default_factory=list)  # length-controlled, fitted at read time
    comparisons: list[PairwiseComparison] = Field(default_factory=list)
    bias: JudgeBias | None = None  # None before any comparison

    @property
    def done(self) -> int:
        return len(self.comparisons)


def judge_bias(
    cs: Sequence[PairwiseComparison],
    ranking: Sequence[PairwiseStanding],
    lengths: Mapping[tuple[str, int], int],
    own: Sequence[str],
) -> JudgeBias:
    """Flip rate, longer-answer win rate and, when it judges `own` (its model's) teams, self-preference."""
    size = [(lengths.get((c.team_a, c.round_a), 0), lengths.get((c.team_b, c.round_b), 0)) for c in cs]
    bias = JudgeBias(
        flips=flip_rate((c.verdict_a_first, c.verdict_b_first) for c in cs),
        longer_wins=won_by((c.outcome, a > b, b > a) for c, (a, b) in zip(cs, size, strict=True)),
        own_teams=list(own),
    )
    if not own:
        return bias
    place = {s.team_id: s.score_rank or 0 for s in ranking}
    mixed = [(c, c.team_a in own, c.team_b in own) for c in cs if c.outcome in (0.0, 1.0)]
    mixed = [m for m in mixed if m[1] != m[2]]
    by_score = ((float(place.get(c.team_a, 0) < place.get(c.team_b, 0)), a, b) for c, a, b in mixed)
    return bias.model_copy(
        update={
            "own_wins": won_by((c.outcome, a, b) for c, a, b in mixed),
            "own_wins_by_score": won_by(by_score),
        }
    )


def pairwise_standings(
    cs: Sequence[PairwiseComparison],
    teams: Mapping[str, tuple[str, int | None]],
    *,
    samples: int,
    seed: int,
    texts: Mapping[tuple[str, int], str] | None = None,
) -> list[PairwiseStanding]:
    """Bradley–Terry standings of the `teams` (id: name, place by score) that met; given the submissions'
    `texts`, length-controlled: their length and Markdown differences are covariates."""
    from mixseek.stats.bradley_terry import Comparison, bradley_terry  # numpy: only once a ranking is fitted
    from mixseek.stats.style_control import style_covariates

    cs = [c for c in cs if c.team_a in teams and c.team_b in teams]
    compared = {t for c in cs for t in (c.team_a, c.team_b)}
    covariates = None
    if texts is not None:
        covariates = style_covariates(
            (texts.get((c.team_a, c.round_a), ""), texts.get((c.team_b, c.round_b), "")) for c in cs
        )
    strengths = bradley_terry(
        sorted(compared),  # in one order, so the stage and a later read fit alike
        [Comparison(c.team_a, c.team_b, c.outcome) for c in cs],
        samples=samples,
        seed=seed,
        covariates=covariates,
    )
    return [
        PairwiseStanding(
            rank=st.rank,
            team_id=st.item,
            team_name=teams[st.item][0],
            strength=round(st.strength, 6),
            ci_low=round(st.low, 6),
            ci_high=round(st.high, 6),
            wins=st.wins,
            matches=st.matches,
            score_rank=teams[st.item][1],
        )
        for st in strengths
    ]
