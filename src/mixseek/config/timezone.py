"""$TZ, the time zone prompts show the current time in (seed 001 §2.4).

Checked when an execution's configuration loads (`check_timezone_env`), so a bad value is one
line before anything runs, not a failure in round 1 after the store is written.
"""

from __future__ import annotations

import os
from datetime import UTC, tzinfo
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mixseek.errors import ConfigError

# Seed 001 §2.4 / seed 000 §6.3.
TZ_ENV_VAR: Final = "TZ"
INVALID_TZ_MESSAGE: Final = (
    "Invalid timezone in TZ environment variable: {value}. "
    "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
)


def timezone_from_env() -> tzinfo:
    """The time zone named by $TZ.

    Unset → UTC. Set but empty → UTC as well (what POSIX/glibc do with TZ="").
    A leading ":" (POSIX "TZ=:Area/City") is accepted. Anything that is not an
    IANA zone name is an error.

    Raises:
        ValueError: "Invalid timezone in TZ environment variable: {value}. Valid examples: ..."
    """
    value = os.environ.get(TZ_ENV_VAR)
    if value is None or value == "":
        return UTC
    key = value.removeprefix(":")
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(INVALID_TZ_MESSAGE.format(value=value)) from None


def check_timezone_env() -> None:
    """Refuse a bad $TZ when an execution is configured, not in round 1 after the store is written.

    Raises:
        ConfigError: with `timezone_from_env`'s message (seed 000 §6.3).
    """
    try:
        timezone_from_env()
    except ValueError as exc:
        raise ConfigError(None, None, str(exc)) from None
