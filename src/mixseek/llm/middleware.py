"""Wrapping every model `create_model` builds inside a block (metering, rate limits, budgets). Like
`override_models`, the active wrappers live in a `ContextVar`, so they apply only to the code that entered the
block."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic_ai.models import Model

ModelWrapper = Callable[[Model, str, str], Model]
"""(model, model string, role) -> the model to use instead."""

_wrappers: ContextVar[tuple[ModelWrapper, ...]] = ContextVar("mixseek_model_wrappers", default=())


@contextmanager
def wrap_models(wrapper: ModelWrapper) -> Iterator[None]:
    token = _wrappers.set((*_wrappers.get(), wrapper))
    try:
        yield
    finally:
        _wrappers.reset(token)


def apply_wrappers(model: Model, model_string: str, role: str) -> Model:
    """Outer blocks wrap first, so the innermost wrapper ends up outermost."""
    for wrapper in _wrappers.get():
        model = wrapper(model, model_string, role)
    return model
