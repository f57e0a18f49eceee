"""Which `[[evaluator.metrics]]` keys each deterministic metric takes, checked when the file loads.
Deterministic metrics call no model, so model keys mean nothing to them, nor their keys to the others: a key
given to the wrong metric is refused, not ignored. A `class_path` metric takes any."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

DETERMINISTIC_OPTIONS: dict[str, tuple[str, ...]] = {
    "length": ("min_chars", "max_chars"),
    "patterns": ("required_patterns", "forbidden_patterns"),
    "json_schema": ("json_schema",),
    "reference_similarity": (),
}
"""The built-in metrics that call no model, and the keys each takes."""

_OWNER = {key: name for name, keys in DETERMINISTIC_OPTIONS.items() for key in keys}

MODEL_KEYS = (
    "model",
    "models",
    "aggregate",
    "trim",
    "system_instruction",
    "temperature",
    "max_tokens",
    "max_retries",
    "timeout_seconds",
    "model_settings",
)
"""Keys that configure a judge model: refused on a metric that calls none."""


def check_patterns(patterns: list[Any] | None) -> list[Any] | None:
    """Every pattern (a string, or a labelled rule's `pattern`) must compile as a Python regex, at load."""
    for entry in patterns or []:
        pattern = entry if isinstance(entry, str) else entry.pattern
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
    return patterns


def option_problem(name: str, custom: bool, given: Mapping[str, object]) -> str | None:
    """What is wrong with the keys `given` (those set, not None) to metric `name`, if anything."""
    if custom:
        return None
    for key in given:
        owner = _OWNER.get(key)
        if owner is not None and owner != name:
            return f"{key}: only metric '{owner}' takes it, not '{name}'"
    wanted = DETERMINISTIC_OPTIONS.get(name)
    if wanted is None:
        return None
    for key in MODEL_KEYS:
        if key in given:
            return f"{key}: metric '{name}' calls no model"
    if wanted and not any(key in given for key in wanted):
        return f"metric '{name}' needs {' or '.join(wanted)}"
    if name == "patterns" and not [
        *_strings(given, "required_patterns"),
        *_strings(given, "forbidden_patterns"),
    ]:
        return "metric 'patterns' needs at least one pattern"
    low, high = given.get("min_chars"), given.get("max_chars")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        return f"min_chars ({low}) is greater than max_chars ({high})"
    return None


def _strings(given: Mapping[str, object], key: str) -> list[object]:
    value = given.get(key)
    return list(value) if isinstance(value, list) else []
