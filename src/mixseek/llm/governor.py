"""Every model call of an execution passes here: shared rate limits, the usage ledger, budgets. Wrapping the
models, not the agents, makes the limits hold for every request of every team; it is in `llm/` so that the
round controller and the orchestrator both import it downwards."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from aiolimiter import AsyncLimiter
from pydantic_ai import RunUsage, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from mixseek.errors import RuntimeFailure
from mixseek.llm.settings import recorded_settings
from mixseek.llm.usage import usage_to_dict


@dataclass(frozen=True)
class CallScope:
    """Which team round a model call belongs to; member tasks inherit it from their leader."""

    team_id: str
    round_number: int


_scope: ContextVar[CallScope | None] = ContextVar("mixseek_call_scope", default=None)
_execution: ContextVar[str | None] = ContextVar("mixseek_call_execution", default=None)


@contextmanager
def call_scope(team_id: str, round_number: int, execution_id: str | None = None) -> Iterator[None]:
    token, execution = _scope.set(CallScope(team_id, round_number)), _execution.set(execution_id)
    try:
        yield
    finally:
        _scope.reset(token)
        _execution.reset(execution)


def scope_context() -> dict[str, str | int | None]:
    """The execution, team and round the running code works for (all None outside a team round)."""
    scope = _scope.get()
    team_id, round_number = (scope.team_id, scope.round_number) if scope else (None, None)
    return {"execution_id": _execution.get(), "team_id": team_id, "round_number": round_number}


class BudgetExceeded(UsageLimitExceeded, RuntimeFailure):
    """An execution-wide limit is reached: no further model request is made."""

    def __init__(self, limit: str, value: float, spent: float) -> None:
        self.limit = limit
        self.value = value
        self.spent = spent
        self.summary = f"budget {limit} = {value:g} reached ({spent:g} spent)"
        super().__init__(self.summary)

    def __str__(self) -> str:
        return self.summary


class GovernorUnreachable(UsageLimitExceeded, RuntimeFailure):
    """The execution's governor could not be asked, so no request may be made: a `UsageLimitExceeded`, which
    every layer lets through as a budget refusal; the Temporal worker retries the activity."""

    def __init__(self, message: str) -> None:
        self.summary = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.summary


@dataclass(frozen=True)
class Budget:
    max_total_tokens: int | None = None
    max_requests: int | None = None
    max_cost_usd: float | None = None


@dataclass
class LedgerEntry:
    team_id: str | None
    round_number: int | None
    site: str
    model: str
    usage: RunUsage
    at: datetime = field(default_factory=lambda: datetime.now(UTC))
    settings: dict[str, Any] | None = None
    """The model settings the request ran with (`recorded_settings`)."""

    def as_row(self) -> dict[str, object]:
        """The form `AggregationStore.record_model_calls` stores."""
        return {
            "team_id": self.team_id,
            "round_number": self.round_number,
            "site": self.site,
            "model": self.model,
            "requests": self.usage.requests,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost": float(self.usage.cost) if self.usage.cost is not None else None,
            "created_at": self.at,
            "settings": self.settings,
        }


@dataclass
class UsageLedger:
    """Usage of every successful model request by team, round and call site, handed to the store once: with
    the result it paid for (`take_unsaved(scope)`), or by a final flush."""

    entries: list[LedgerEntry] = field(default_factory=list)
    total: RunUsage = field(default_factory=RunUsage)  # includes what `preload` brought in
    _unsaved: list[LedgerEntry] = field(default_factory=list)
    # the entries of each (team_id, round_number), for the per-round lookups of every save
    _by_team_round: dict[tuple[str | None, int | None], list[LedgerEntry]] = field(default_factory=dict)

    def preload(self, usage: RunUsage) -> None:
        """Usage spent outside this ledger (an earlier process's, a worker's) counts towards budgets."""
        self.total.incr(usage)

    def take_unsaved(self, scope: CallScope | None = None) -> list[LedgerEntry]:
        """Entries not yet handed to the store (only those of one team round, with `scope`)."""
        if scope is None:
            taken, self._unsaved = self._unsaved, []
            return taken
        key = (scope.team_id, scope.round_number)
        taken = [e for e in self._unsaved if (e.team_id, e.round_number) == key]
        self._unsaved = [e for e in self._unsaved if (e.team_id, e.round_number) != key]
        return taken

    def take_unsaved_rows(self, scope: CallScope | None = None) -> list[dict[str, object]]:
        """`take_unsaved` in the form `AggregationStore.record_model_calls` stores."""
        return [entry.as_row() for entry in self.take_unsaved(scope)]

    def forget(self, scope: CallScope) -> None:
        """Drop one team round's entries (an attempt redone from the start); the total keeps them."""
        key = (scope.team_id, scope.round_number)
        self.take_unsaved(scope)
        self.entries = [e for e in self.entries if (e.team_id, e.round_number) != key]
        self._by_team_round.pop(key, None)

    def give_back(self, entries: list[LedgerEntry]) -> None:
        """Entries taken for a write that failed: a later write or flush stores them."""
        self._unsaved[:0] = entries

    def record(self, site: str, model: str, usage: RunUsage, settings: dict[str, Any] | None = None) -> None:
        scope = _scope.get()
        entry = LedgerEntry(
            team_id=scope.team_id if scope else None,
            round_number=scope.round_number if scope else None,
            site=site,
            model=model,
            usage=usage,
            settings=settings,
        )
        self.entries.append(entry)
        self._unsaved.append(entry)
        self._by_team_round.setdefault((entry.team_id, entry.round_number), []).append(entry)
        self.total.incr(usage)

    def cost(self) -> float:
        return float(self.total.cost or 0)

    def by_site(
        self, team_id: str | None = None, round_number: int | None = None
    ) -> dict[str, dict[str, object]]:
        """Summed usage per call site (e.g. "leader of team 'a'", "evaluator metric 'coverage'")."""
        sums: dict[str, RunUsage] = {}
        entries = (
            self._by_team_round.get((team_id, round_number), [])
            if team_id is not None and round_number is not None
            else self.entries
        )
        for entry in entries:
            if team_id is not None and entry.team_id != team_id:
                continue
            if round_number is not None and entry.round_number != round_number:
                continue
            sums.setdefault(entry.site, RunUsage()).incr(entry.usage)
        return {site: dict(usage_to_dict(usage)) for site, usage in sums.items()}

    def exceeded(self, budget: Budget) -> BudgetExceeded | None:
        total = self.total
        if budget.max_total_tokens is not None and total.total_tokens >= budget.max_total_tokens:
            return BudgetExceeded("max_total_tokens", budget.max_total_tokens, total.total_tokens)
        if budget.max_requests is not None and total.requests >= budget.max_requests:
            return BudgetExceeded("max_requests", budget.max_requests, total.requests)
        if budget.max_cost_usd is not None and (cost := self.cost()) >= budget.max_cost_usd:
            return BudgetExceeded("max_cost_usd", budget.max_cost_usd, cost)
        return None


class RateLimiter:
    """At most `max_concurrent` requests in flight, and `per_minute` started in any 60 s window: aiolimiter's
    bucket holds one request, so they start evenly spaced (a full-size bucket would allow twice as many)."""

    def __init__(self, max_concurrent: int, per_minute: int | None, *, window_seconds: float = 60.0) -> None:
        self._slots = asyncio.Semaphore(max_concurrent)
        self._pace = AsyncLimiter(1, window_seconds / per_minute) if per_minute is not None else None
        self.started = 0  # requests that passed the limiter

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._slots:
            if self._pace is not None:
                await self._pace.acquire()
            self.started += 1
            yield


@dataclass
class Ticket:
    """Leave for one request; `spent` is what the attempt used, once it is known."""

    spent: RunUsage | None = None


class Authority(Protocol):
    """Who admits each request of an execution (this process's governor, or a shared service): `admission`
    checks the budget, holds a rate-limit slot for the block, and counts the ticket's `spent`."""

    def admission(self, model_string: str) -> AbstractAsyncContextManager[Ticket]: ...


@dataclass(frozen=True)
class ModelLimit:
    max_concurrent: int
    requests_per_minute: int | None


class Governor:
    """Owns one execution's limiters (one per model string), ledger and budget."""

    def __init__(
        self, budget: Budget, default_limit: ModelLimit, model_limits: dict[str, ModelLimit] | None = None
    ) -> None:
        self.budget = budget
        self.ledger = UsageLedger()
        self.default_limit = default_limit
        self.model_limits = dict(model_limits or {})
        self._limiters: dict[str, RateLimiter] = {}
        # another authority (a Temporal worker's: the execution's governor service) admits instead
        self.authority: Authority | None = None

    def limiter(self, model_string: str) -> RateLimiter:
        if model_string not in self._limiters:
            limit = self.model_limits.get(model_string, self.default_limit)
            self._limiters[model_string] = RateLimiter(limit.max_concurrent, limit.requests_per_minute)
        return self._limiters[model_string]

    def check_budget(self) -> None:
        exceeded = self.ledger.exceeded(self.budget)
        if exceeded is not None:
            raise exceeded

    def admission(self, model_string: str) -> AbstractAsyncContextManager[Ticket]:
        """Leave for one request, from the authority if there is one, else from this governor."""
        if self.authority is not None:
            return self.authority.admission(model_string)
        return self.local_admission(model_string)

    @asynccontextmanager
    async def local_admission(self, model_string: str) -> AsyncIterator[Ticket]:
        """This governor's own limits and budget; `GovernedModel` records the usage in the ledger."""
        self.check_budget()
        async with self.limiter(model_string).slot():
            # again once the slot is ours: what was spent while this request waited counts too
            self.check_budget()
            yield Ticket()

    def wrap(self, model: Model, model_string: str, role: str) -> Model:
        """The `wrap_models` hook: every model of the execution becomes governed."""
        return GovernedModel(model, governor=self, model_string=model_string, site=role)


class GovernedModel(WrapperModel):
    """Checks the budget, waits for a rate-limit slot, makes the request, records its usage."""

    def __init__(self, wrapped: Model, *, governor: Governor, model_string: str, site: str) -> None:
        super().__init__(wrapped)
        self.governor = governor
        self.model_string = model_string
        self.site = site

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        async with self.governor.admission(self.model_string) as ticket:
            try:
                response = await self.wrapped.request(messages, model_settings, model_request_parameters)
            except Exception:
                # a failed attempt still reached (and may be billed by) the provider: it counts
                # towards `max_requests` like any other (mixseek retries it as a new request)
                self._spent(ticket, RunUsage(requests=1), model_settings)
                raise
            usage = RunUsage(requests=1)
            usage.incr(response.usage)
            self._spent(ticket, usage, model_settings)
        return response

    def _spent(self, ticket: Ticket, usage: RunUsage, settings: ModelSettings | None) -> None:
        # {} for a request without settings: a NULL is a call recorded before settings were
        self.governor.ledger.record(self.site, self.model_string, usage, recorded_settings(settings) or {})
        ticket.spent = usage
