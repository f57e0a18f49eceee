"""One team's rounds: prompt, team run, evaluation, save, judgment."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from opentelemetry.trace import Span
from pydantic_ai import UsageLimitExceeded

import mixseek.telemetry as telemetry
from mixseek.agents.team import Team
from mixseek.errors import describe_exception
from mixseek.evaluator.evaluator import Evaluator
from mixseek.llm.governor import CallScope, Governor, GovernorUnreachable, call_scope
from mixseek.llm.own_texts import own_texts
from mixseek.llm.usage import usage_to_dict
from mixseek.prompt_builder.builder import template_words
from mixseek.prompt_builder.models import RoundPromptContext
from mixseek.prompt_builder.protocol import PromptBuilder
from mixseek.round_controller.judgment_client import JudgmentClient
from mixseek.round_controller.models import RoundOutcome, RoundSnapshot
from mixseek.storage.errors import RecordNotFoundError, StorageError
from mixseek.storage.models import RoundDecision, RoundKey, RoundRecord
from mixseek.storage.protocol import RoundWriter

logger = logging.getLogger("mixseek.round_controller")

# A store write that takes the usage rows of the requests behind its result.
PaidWrite = Callable[[Sequence[Mapping[str, Any]]], Awaitable[None]]


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(kw_only=True, eq=False)
class RoundController:
    """Runs and judges the rounds of one team within one execution."""

    execution_id: str
    user_prompt: str
    team: Team
    store: RoundWriter
    prompt_builder: PromptBuilder
    evaluator: Evaluator
    judgment: JudgmentClient
    governor: Governor | None = None
    timeout_seconds: float | None = None
    # the grader's answer key: for the evaluator only, never in a team's prompt
    reference: str | None = None
    # each round's span, for the judgment made after it at the round barrier
    _round_spans: dict[int, Span] = field(default_factory=dict, init=False, repr=False)

    @property
    def team_id(self) -> str:
        return self.team.config.team_id

    @property
    def team_name(self) -> str:
        return self.team.config.team_name

    def key(self, round_number: int) -> RoundKey:
        return RoundKey(self.execution_id, self.team_id, round_number)

    def _context(
        self, round_number: int, *, including_current: bool, snapshot: RoundSnapshot
    ) -> RoundPromptContext:
        """The prompt context from the board at the round barrier — the same for every team,
        also when a resumed round is re-run after other teams already saved theirs."""
        last = round_number if including_current else round_number - 1
        if snapshot.up_to_round != last:
            raise ValueError(f"snapshot is of round {snapshot.up_to_round}, round {last} is needed")
        return RoundPromptContext(
            user_prompt=self.user_prompt,
            round_number=round_number,
            round_history=snapshot.histories.get(self.team_id, []),
            team_id=self.team_id,
            team_name=self.team_name,
            execution_id=self.execution_id,
            ranking=snapshot.ranking,
        )

    def _outcome(self, round_number: int, started: datetime, **fields: object) -> RoundOutcome:
        return RoundOutcome.model_validate(
            {
                "execution_id": self.execution_id,
                "team_id": self.team_id,
                "team_name": self.team_name,
                "round_number": round_number,
                "started_at": started,
                "ended_at": _now(),
                **fields,
            }
        )

    async def run_team_round(self, round_number: int, *, snapshot: RoundSnapshot) -> RoundOutcome:
        """Prompt → team → evaluation → save, within the team-round timeout, from `snapshot` (the
        board after the round before). A failure is recorded and returned, never raised."""
        with telemetry.span(
            "mixseek.team_round",
            execution_id=self.execution_id,
            team_id=self.team_id,
            team_name=self.team_name,
            round=round_number,
        ) as span:
            self._round_spans[round_number] = span
            outcome = await self._attempt(round_number, snapshot)
            telemetry.record(
                span, status=outcome.status, score=outcome.score, tokens=outcome.tokens, error=outcome.error
            )
            if outcome.error is not None:
                telemetry.failed(span, outcome.error)
            return outcome

    async def _attempt(self, round_number: int, snapshot: RoundSnapshot) -> RoundOutcome:
        started = _now()
        scope = call_scope(self.team_id, round_number, self.execution_id)
        with scope, own_texts(template_words(self.prompt_builder)):
            try:
                async with asyncio.timeout(self.timeout_seconds):
                    return await self._run(round_number, started, snapshot)
            except TimeoutError:
                error = f"team round timed out after {self.timeout_seconds:g} s"
                await self._store_paid(round_number, self._failure(round_number, "timeout", error))
                return self._outcome(round_number, started, status="timeout", error=error)
            except GovernorUnreachable:
                # the execution's governor could not be asked: the round is redone, not ended
                raise
            except UsageLimitExceeded as exc:
                # cut by the execution budget: not the team's fault, and a resume may redo it
                return self._outcome(round_number, started, status="budget", error=str(exc))
            except StorageError:
                # the store failed, not the team: the execution stops, resumable, instead
                raise
            except Exception as exc:
                error = describe_exception(exc)
                logger.warning("team %s round %d failed: %s", self.team_id, round_number, error, exc_info=exc)
                await self._store_paid(round_number, self._failure(round_number, "failed", error))
                return self._outcome(round_number, started, status="failed", error=error)

    def _failure(self, round_number: int, status: Literal["failed", "timeout"], error: str) -> PaidWrite:
        key = self.key(round_number)
        return lambda calls: self.store.mark_round_failed(key, status, error, model_calls=calls)

    async def _store_paid(self, round_number: int, write: PaidWrite) -> None:
        """Run `write` with the usage of this team round's requests not stored yet, so a result is
        never stored without what it cost. A failed write gives the usage back to the ledger, unless
        the store refused the write alone (no such round): it committed the usage all the same."""
        if self.governor is None:
            await write([])
            return
        ledger = self.governor.ledger
        entries = ledger.take_unsaved(CallScope(self.team_id, round_number))
        try:
            await write([entry.as_row() for entry in entries])
        except RecordNotFoundError:
            raise
        except Exception:
            ledger.give_back(entries)
            raise

    async def _run(self, round_number: int, started: datetime, snapshot: RoundSnapshot) -> RoundOutcome:
        context = self._context(round_number, including_current=False, snapshot=snapshot)
        prompt = await self.prompt_builder.build_team_prompt(context)
        team_result = await self.team.run(prompt, round_number=round_number, user_prompt=self.user_prompt)
        evaluation = await self.evaluator.evaluate(
            self.user_prompt, team_result.output, reference=self.reference
        )
        usage: dict[str, Any] = {
            "team": usage_to_dict(team_result.usage),
            "leader": usage_to_dict(team_result.leader_usage),
            "members": usage_to_dict(team_result.record.total_usage),
            "evaluation": usage_to_dict(evaluation.usage),
        }
        if self.governor is not None:
            usage["by_site"] = self.governor.ledger.by_site(self.team_id, round_number)
        record = RoundRecord(
            **self.key(round_number)._asdict(),
            team_name=self.team_name,
            submission_content=team_result.output,
            evaluation_score=evaluation.score,
            evaluation_feedback=evaluation.feedback,
            score_details=evaluation.score_details,
            usage_info=usage,
            message_history=team_result.messages_json(),
            member_submissions_record=team_result.record.stored_json(),
            started_at=started,
            ended_at=_now(),
        )
        # in one transaction with its usage: a reader who sees the round on the board sees what it cost
        await self._store_paid(round_number, lambda calls: self.store.save_round(record, model_calls=calls))
        return self._outcome(
            round_number,
            started,
            status="completed",
            score=evaluation.score,
            score_details=evaluation.score_details,
            feedback=evaluation.feedback,
            submission=team_result.output,
            usage=usage,
        )

    async def decide(
        self, round_number: int, *, min_rounds: int, max_rounds: int, snapshot: RoundSnapshot
    ) -> RoundDecision:
        """Whether the team plays round `round_number + 1`, from `snapshot`, the board after this round."""
        if round_number < min_rounds:
            return RoundDecision(should_continue=True, reason="min_rounds")
        if round_number >= max_rounds and not self.judgment.settings.judge_on_final_round:
            return RoundDecision(should_continue=False, reason="max_rounds")
        return await self._judge(round_number, final=round_number >= max_rounds, snapshot=snapshot)

    async def record_decision(self, round_number: int, decision: RoundDecision) -> None:
        """Store the decision with its saved round, and the usage of the judgment that made it."""
        key = self.key(round_number)
        await self._store_paid(
            round_number, lambda calls: self.store.update_judgment(key, decision, model_calls=calls)
        )

    async def _judge(self, round_number: int, *, final: bool, snapshot: RoundSnapshot) -> RoundDecision:
        with (
            call_scope(self.team_id, round_number),
            own_texts(template_words(self.prompt_builder)),
            telemetry.span(
                "mixseek.judgment",
                parent=self._round_spans.get(round_number),
                execution_id=self.execution_id,
                team_id=self.team_id,
                round=round_number,
            ) as span,
        ):
            try:
                context = self._context(round_number, including_current=True, snapshot=snapshot)
                result = await self.judgment.judge(context)
            except UsageLimitExceeded:
                raise
            except Exception as exc:
                logger.warning("judgment for team %s round %d failed: %s", self.team_id, round_number, exc)
                telemetry.failed(span, describe_exception(exc))
                return RoundDecision(
                    should_continue=False, reason="judgment_failed", reasoning=describe_exception(exc)
                )
            out = result.output
            # on the final round the verdict is recorded, but the round limit decides
            decision = RoundDecision(
                should_continue=out.should_continue and not final,
                reason="max_rounds" if final else "judgment",
                reasoning=out.reasoning,
                confidence=out.confidence_score,
            )
            telemetry.record(
                span,
                verdict=out.should_continue,
                should_continue=decision.should_continue,
                reason=decision.reason,
                confidence=decision.confidence,
                **telemetry.usage(result.usage),
            )
        return decision
