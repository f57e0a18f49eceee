"""One hierarchy for every error mixseek raises, split by whose fault it is.

`MixseekError` is the root: `except MixseekError` catches anything mixseek raises on purpose.
Below it, exactly one of two branches says what to do about it:

- `InputError` — something the user gave is wrong: a config file, a template, an environment
  variable, a command-line argument, a model name, an argument of the Python API. The message
  names the file or variable, the key and the reason; fixing it and running again helps. It is
  also a `ValueError`, which is what code written against the seeds catches for a bad value.
- `RuntimeFailure` — the input is in order, but something failed while running: the store is
  busy, damaged or not writable, a metric's or the judgment's model call failed, a page could not
  be fetched, code could not be run, the local model did not load. Retrying later or fixing the
  machine may help; editing the config does not. It is also a `RuntimeError`.

The CLI reports either as one line on stderr and exit code 2 (`cli.errors` maps the branches
to `mixseek.exit_codes`), never a traceback.
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
    """`Type: first line of the message`, short enough for a table cell, a log line or a tool result.

    Credential values in the message (a provider echoing the request's key) are redacted: the
    description is stored, logged, printed and shown to other models."""
    lines = redact(str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
