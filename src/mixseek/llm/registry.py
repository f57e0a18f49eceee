"""Model-string prefixes handled by mixseek or by plugins rather than by pydantic-ai:
`register_model_provider("acme", factory)` makes `create_model("acme:big")` return `factory("big")`, ahead of
a pydantic-ai provider of that name and without a credential check."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mixseek.llm.local import check_local_model, create_local_model
from mixseek.llm.model_string import is_valid_provider_name

if TYPE_CHECKING:
    from pydantic_ai.models import Model

ModelFactory = Callable[[str], "Model"]
ModelCheck = Callable[[str], None]


@dataclass(frozen=True)
class ModelProvider:
    """A registered prefix: how to build its models and, optionally, how to validate one."""

    prefix: str
    factory: ModelFactory
    check: ModelCheck | None = None


_lock = threading.Lock()
_providers: dict[str, ModelProvider] = {}


def _validate_prefix(prefix: str) -> None:
    if not is_valid_provider_name(prefix):
        raise ValueError(
            f"invalid model provider prefix {prefix!r}: use letters, digits, '.', '_', '-' or '/' (no ':')"
        )


def register_model_provider(
    prefix: str, factory: ModelFactory, *, check: ModelCheck | None = None, replace: bool = False
) -> None:
    """Route `create_model("<prefix>:<rest>")` to `factory("<rest>")`; a taken prefix needs `replace`."""
    _validate_prefix(prefix)
    with _lock:
        if prefix in _providers and not replace:
            raise ValueError(f"model provider prefix {prefix!r} is already registered")
        _providers[prefix] = ModelProvider(prefix=prefix, factory=factory, check=check)


def unregister_model_provider(prefix: str) -> None:
    """Remove a registered prefix; unknown prefixes are ignored."""
    with _lock:
        _providers.pop(prefix, None)


def registered_provider(prefix: str) -> ModelProvider | None:
    """The registration for `prefix`, if any."""
    return _providers.get(prefix)


def registered_prefixes() -> tuple[str, ...]:
    """All registered prefixes, sorted."""
    return tuple(sorted(_providers))


# The embedded llama.cpp model (a later version replaces this handler).
register_model_provider("local", create_local_model, check=check_local_model)
