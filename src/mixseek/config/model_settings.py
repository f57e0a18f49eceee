"""The `model_settings` table every role takes, checked when its file loads against each of the role's models
(`mixseek.llm.settings`); dumped as JSON without the values that may carry credentials."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, Field, PlainSerializer, ValidationError
from pydantic_core import InitErrorDetails


def _dumped(table: dict[str, Any] | None) -> dict[str, Any] | None:
    from mixseek.llm.settings import recorded_settings

    return recorded_settings(table)


ModelSettingsTable = Annotated[
    dict[str, Any] | None,
    Field(exclude_if=lambda table: not table),  # absent when unset: earlier config hashes hold
    PlainSerializer(_dumped, when_used="json"),
]


def check_model_settings(
    owner: BaseModel, models: Sequence[object], *, explicit: Iterable[str] = (), at: tuple[Any, ...] = ()
) -> None:
    """A ValidationError at `model_settings.<key>` for a key also set explicitly, or that a model refuses."""
    table: dict[str, Any] | None = getattr(owner, "model_settings", None)
    if table:
        from mixseek.llm.settings import SAMPLING_KEYS, settings_problem

        given = {
            k
            for k in explicit or SAMPLING_KEYS
            if k in owner.model_fields_set and getattr(owner, k) is not None
        }
        if problem := settings_problem(models, table, given):
            key, reason = problem
            error = InitErrorDetails(
                type="value_error",
                loc=(*at, "model_settings", key),
                input=table[key],
                ctx={"error": ValueError(reason)},
            )
            raise ValidationError.from_exception_data(type(owner).__name__, [error])
