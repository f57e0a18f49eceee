"""Parsing of `provider:model` strings (or `test`): only the shape; the provider is checked later."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from mixseek.errors import InputError

TEST_MODEL = "test"

ACCEPTED_FORM = (
    "expected 'provider:model' (e.g. 'openai:gpt-4o', 'anthropic:claude-sonnet-4-5', "
    "'google-gla:gemini-2.5-flash', 'ollama:llama3.2'), 'local:<name-or-path>' or 'test'"
)

# Names pydantic-ai 1.x used and 2.x renamed; mixseek configs keep accepting them.
PROVIDER_ALIASES: dict[str, str] = {"google-gla": "google", "google-vertex": "google-cloud"}

_PROVIDER_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def is_valid_provider_name(provider: str) -> bool:
    """Whether `provider` can appear before the ':' of a model string."""
    return _PROVIDER_RE.fullmatch(provider) is not None


@dataclass(frozen=True)
class ModelString:
    """A parsed model string: the provider prefix as written and the rest."""

    provider: str
    name: str

    @property
    def canonical_provider(self) -> str:
        """The provider name pydantic-ai uses (legacy aliases resolved)."""
        return PROVIDER_ALIASES.get(self.provider, self.provider)


def canonical_model(model: str) -> str:
    """`model` with its provider's legacy alias resolved, so `google-gla:x` and `google:x` compare equal."""
    provider, sep, name = model.partition(":")
    return f"{PROVIDER_ALIASES.get(provider, provider)}{sep}{name}"


def _models(value: object) -> Iterator[str]:
    """Every `model` string in a team's settings: its leader's, members', workflow executors'."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key == "model" and isinstance(item, str):
                yield canonical_model(item)
            yield from _models(item)
    elif isinstance(value, list):
        for item in value:
            yield from _models(item)


def teams_using(model: str, teams: Mapping[str, object]) -> list[str]:
    """The ids of `teams` (id -> settings as JSON) with `model` as one of their models, aliases resolved."""
    return sorted(t for t, team in teams.items() if canonical_model(model) in set(_models(team)))


def parse_model_string(model: str, *, role: str) -> ModelString:
    """Split `provider:model`, or raise an `InputError` naming the model, the role and the accepted form."""
    provider, sep, name = model.partition(":")
    if not sep:
        raise InputError(f"model {model!r} for {role} is malformed: {ACCEPTED_FORM}")
    if not is_valid_provider_name(provider):
        raise InputError(f"model {model!r} for {role} has no valid provider before ':': {ACCEPTED_FORM}")
    if not name.strip() or name != name.strip():
        raise InputError(f"model {model!r} for {role} has no valid model name after ':': {ACCEPTED_FORM}")
    return ModelString(provider=provider, name=name)
