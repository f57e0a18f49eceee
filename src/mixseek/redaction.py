"""Keeping credential values out of everything mixseek stores, logs or prints.

A provider that echoes the request's `Authorization` header (a debugging proxy, a misconfigured
gateway, a hostile endpoint) would put the API key into model answers and error messages, and
from there into the store, the logs and the terminal. Each boundary where text leaves mixseek
passes it through a `Redactor`, which replaces the value of every credential variable set in the
environment with `[REDACTED:<VARIABLE>]`.

Which variables hold credentials is read from their names: a name with a `KEY`, `APIKEY`,
`TOKEN`, `SECRET`, `PASSWORD` or `PASSWD` part (split at `_`). That covers every key variable
in `mixseek.llm.credentials` (`OPENAI_API_KEY`, `HF_TOKEN`, `HEROKU_INFERENCE_KEY`, ...) and
the keys of plugins and other tools, while addresses such as `OPENAI_BASE_URL` stay readable.
Values shorter than `MIN_SECRET_LENGTH` are left alone: replacing "1" or "true" everywhere
would mangle text and protect nothing.

This module imports nothing of mixseek, so every layer may use it. A `Redactor` is a snapshot
of the environment; a boundary takes one per operation (a transaction, a log record, a printed
renderable) and `redact` takes a fresh one on each call.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Mapping
from typing import Any

MIN_SECRET_LENGTH = 8
SECRET_NAME_PARTS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"})


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a credential."""
    return any(part in SECRET_NAME_PARTS for part in name.upper().split("_"))


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """(value, variable) of each credential set in `environ` (default: the process's environment
    as it is now), longest value first.

    The longest first, so that a key which contains another key is replaced whole. A value set
    in several variables is named after the first of them in sorted order."""
    if environ is None:
        return _environment_secrets(_environment_now())
    return _secrets_in(environ)


def _environment_now() -> tuple[tuple[Any, Any], ...]:
    """The environment's names and values as the interpreter holds them (undecoded): a snapshot
    to look up the secrets of, made in about a microsecond where decoding every variable to
    find them again takes 30 (a Redactor is made per model response, event and transaction)."""
    held = getattr(os.environ, "_data", None)
    return tuple(held.items()) if isinstance(held, dict) else tuple(os.environ.items())


@functools.lru_cache(maxsize=8)
def _environment_secrets(snapshot: tuple[tuple[Any, Any], ...]) -> tuple[tuple[str, str], ...]:
    # decoded as os.environ decodes what it holds
    return _secrets_in({os.fsdecode(name): os.fsdecode(value) for name, value in snapshot})


def _secrets_in(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for name in sorted(env):
        value = env[name].strip()
        if len(value) >= MIN_SECRET_LENGTH and is_secret_name(name):
            found.setdefault(value, name)
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


@functools.lru_cache(maxsize=16)
def _pattern(secrets: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(value) for value, _ in secrets))


class Redactor:
    """Replaces the credentials known when it was made; cheap to make, cheaper when none is set."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._secrets = secret_values(environ)
        self._names = dict(self._secrets)

    @property
    def active(self) -> bool:
        """Whether there is anything to redact."""
        return bool(self._secrets)

    def text(self, text: str) -> str:
        """`text` with every known credential value replaced by `[REDACTED:<VARIABLE>]`."""
        if not self._secrets or not any(value in text for value, _ in self._secrets):
            return text
        return _pattern(self._secrets).sub(lambda match: f"[REDACTED:{self._names[match.group(0)]}]", text)

    def value(self, data: Any) -> Any:
        """JSON-like `data` with `text` applied to every string (dict keys included); lists and
        tuples keep their type; anything else is returned as it is."""
        if not self._secrets:
            return data
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {self.value(key): self.value(item) for key, item in data.items()}
        if isinstance(data, list):
            return [self.value(item) for item in data]
        if isinstance(data, tuple):
            return tuple(self.value(item) for item in data)
        return data


def redact(text: str) -> str:
    """`text` without the values of the credentials set in the environment right now."""
    return Redactor().text(text)


class RedactingFormatter(logging.Formatter):
    """Formats a record with `inner`, then redacts the line (message, arguments and traceback)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record))
