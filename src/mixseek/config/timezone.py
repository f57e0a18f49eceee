"""$TZ, the time zone prompts show the current time in; checked when a configuration loads, so a bad value is
one line before anything runs."""

from __future__ import annotations

import os
from datetime import UTC, tzinfo
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mixseek.errors import ConfigError

TZ_ENV_VAR: Final = "TZ"
INVALID_TZ_MESSAGE: Final = (
    "Invalid timezone in TZ environment variable: {value}. "
    "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
)


def timezone_from_env() -> tzinfo:
    """The zone named by $TZ (unset or empty: UTC; a leading ":" accepted), else `ValueError`."""
    value = os.environ.get(TZ_ENV_VAR)
    if value is None or value == "":
        return UTC
    key = value.removeprefix(":")
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(INVALID_TZ_MESSAGE.format(value=value)) from None


def check_timezone_env() -> None:
    """Refuse a bad $TZ as a `ConfigError` when an execution is configured, not in round 1."""
    try:
        timezone_from_env()
    except ValueError as exc:
        raise ConfigError(None, None, str(exc)) from None
