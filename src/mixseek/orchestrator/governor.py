"""The request governor, as imported before it moved to `mixseek.llm.governor` (the request layer)."""

from mixseek.llm.governor import (
    Budget,
    BudgetExceeded,
    CallScope,
    GovernedModel,
    Governor,
    LedgerEntry,
    ModelLimit,
    RateLimiter,
    UsageLedger,
    call_scope,
)

__all__ = [
    "Budget",
    "BudgetExceeded",
    "CallScope",
    "GovernedModel",
    "Governor",
    "LedgerEntry",
    "ModelLimit",
    "RateLimiter",
    "UsageLedger",
    "call_scope",
]
