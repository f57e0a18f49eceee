"""Leaving out converted values this mixseek refuses (a 5 s leader timeout: the default applies), reported
in `config validate`'s words; a required key stays as written, for the final check to report."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from mixseek.config.loader import errors_from_validation
from mixseek.migrate.fields import Where
from mixseek.migrate.report import Report


def _remove(data: dict[str, Any], loc: tuple[int | str, ...]) -> tuple[bool, Any]:
    """Delete the value at `loc` inside `data`; (whether it was there, its value)."""
    node: Any = data
    for part in loc[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False, None
    last = loc[-1] if loc else None
    if isinstance(node, dict) and last in node:
        return True, node.pop(last)
    return False, None


def _is_required(model: type[BaseModel], name: int | str) -> bool:
    field = model.model_fields.get(str(name))
    return field is not None and field.is_required()


def prune_invalid(
    model: type[BaseModel], data: dict[str, Any], where: Where, report: Report
) -> dict[str, Any]:
    """`data` without the values `model` rejects (each one reported); changed in place and returned."""
    for _ in range(64):  # each pass removes at least one value, or stops
        try:
            model.model_validate(data)
            return data
        except ValidationError as exc:
            problems = errors_from_validation(exc, model=model, path=where.file, section=where.prefix)
            removed = False
            for error, problem in zip(exc.errors(), problems.all_problems(), strict=True):
                loc = tuple(error["loc"])
                required = len(loc) == 1 and _is_required(model, loc[0])
                found, value = (False, None) if error["type"] == "missing" or required else _remove(data, loc)
                if found:
                    report.drop(where.file, problem.key, f"value {value!r} not accepted: {problem.reason}")
                    removed = True
            if not removed:
                return data
    return data
