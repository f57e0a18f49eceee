"""Errors that the CLI turns into one clear line and exit code 2.

Every error a user can cause by bad input (a config file, a template, an
environment variable, a CLI argument) is a `MixseekError`, so the CLI can
report it without a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mixseek.redaction import redact


class MixseekError(Exception):
    """A failure caused by input the user can fix."""


class ConfigError(MixseekError):
    """A config value is missing, malformed or refers to something absent.

    The message always names where the value came from (a file or an
    environment variable), the key, and the reason.
    """

    def __init__(self, source: str | Path | None, key: str | None, reason: str) -> None:
        self.source = str(source) if source is not None else None
        self.key = key
        self.reason = reason
        self.others: list[ConfigError] = []
        parts = [p for p in (self.source, self.key) if p]
        super().__init__(": ".join([*parts, reason]))

    @classmethod
    def combine(cls, problems: Sequence[ConfigError]) -> ConfigError:
        """The first of `problems`, carrying the rest as its `others`."""
        first = problems[0]
        first.others = list(problems[1:])
        return first

    def all_problems(self) -> list[ConfigError]:
        """This problem and the others found in the same check."""
        return [self, *self.others]


class MissingCredentialsError(MixseekError):
    """A model was chosen whose provider needs a key that is not set."""

    def __init__(self, model: str, role: str, env_var: str) -> None:
        self.model = model
        self.role = role
        self.env_var = env_var
        super().__init__(
            f"model '{model}' for {role} needs credentials: set the environment variable {env_var}"
        )


def describe_exception(exc: BaseException) -> str:
    """`Type: first line of the message`, short enough for a table cell, a log line or a tool result.

    Credential values in the message (a provider echoing the request's key) are redacted: the
    description is stored, logged, printed and shown to other models."""
    lines = redact(str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
