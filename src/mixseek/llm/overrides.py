"""`override_models`: substitute models for model strings within a block. The overrides live in a
`ContextVar`, so tasks and `to_thread` workers started inside the block see them and concurrent tasks do not.
Blocks nest; the innermost one that knows a string wins."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from pydantic_ai.models import Model

# pydantic-ai is imported only once there is an override (its models exist by then): checking a
# model string (`config validate`) asks `has_override` and must not load pydantic-ai for it
ModelOverride: TypeAlias = "Mapping[str, Model] | Callable[[str], Model | None]"
_Layer: TypeAlias = "Callable[[str], Model | None]"

_active: ContextVar[tuple[_Layer, ...]] = ContextVar("mixseek_model_overrides", default=())


def _layer(models: ModelOverride) -> _Layer:
    from pydantic_ai.models import Model

    if isinstance(models, Mapping):
        table = dict(models)
        for key, value in table.items():
            if not isinstance(value, Model):
                raise TypeError(f"override for {key!r} is {type(value).__name__}, not a pydantic-ai Model")
        return table.get
    if callable(models):
        return models
    raise TypeError(f"override_models takes a mapping or a callable, not {type(models).__name__}")


@contextmanager
def override_models(models: ModelOverride) -> Iterator[None]:
    """Make `create_model` return the given models inside the block: `models` maps exact strings to models, or
    returns a model or None (fall through); no credential check for them."""
    layer = _layer(models)
    token = _active.set((*_active.get(), layer))
    try:
        yield
    finally:
        try:
            _active.reset(token)
        except ValueError:
            # Left in another context than the one that entered (e.g. an async fixture torn
            # down in a different task): remove just this layer there.
            _active.set(tuple(active for active in _active.get() if active is not layer))


def overridden_model(model: str) -> Model | None:
    """The model an active override gives for `model`, innermost first, or None."""
    for layer in reversed(_active.get()):
        result = layer(model)
        if result is not None:
            from pydantic_ai.models import Model

            if not isinstance(result, Model):
                raise TypeError(
                    f"model override returned {type(result).__name__} for {model!r}, not a pydantic-ai Model"
                )
            return result
    return None


def has_override(model: str) -> bool:
    """Whether an active override provides a model for `model`."""
    return overridden_model(model) is not None
