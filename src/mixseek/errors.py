"""One hierarchy for every error mixseek raises, split by whose fault it is: `InputError` (a
`ValueError`: fixing what the user gave helps) or `RuntimeFailure` (a `RuntimeError`: the store, a
model call, the machine failed). The CLI reports either as one line on stderr (`cli.errors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mixseek.redaction import redact


class MixseekError(Exception):
    """The root of every mixseek error; raise one of its two branches, never this class itself."""


class InputError(MixseekError, ValueError):
    """Input the user can fix: the message names where it came from and what is wrong with it."""


class RuntimeFailure(MixseekError, RuntimeError):
    """A failure while running that is not the input's fault (the store, a model call, the machine)."""


class ConfigError(InputError):
    """A config value is missing, malformed or refers to something absent: the message names its
    source (a file or an environment variable), the key and the reason."""

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


class MissingCredentialsError(InputError):
    """A model was chosen whose provider needs a key that is not set."""

    def __init__(self, model: str, role: str, env_var: str) -> None:
        self.model = model
        self.role = role
        self.env_var = env_var
        super().__init__(
            f"model '{model}' for {role} needs credentials: set the environment variable {env_var}"
        )


def describe_exception(exc: BaseException) -> str:
    """`Type: first line of the message`, for a table cell, a log line or a tool result; credential
    values are redacted, since it is stored, logged and shown to other models."""
    lines = redact(str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
