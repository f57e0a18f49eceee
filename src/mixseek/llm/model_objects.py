"""Models given as pydantic-ai `Model` objects in code. Where a string is needed (stored usage, rate limits,
snapshots, messages), an object goes by a label made once per object and process, `openai:gpt-4o#1`: the `#n`
keeps two objects of one model apart and never reads as a model string."""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref

from pydantic_ai.models import Model

_labels: dict[int, str] = {}
_numbers = itertools.count(1)
_lock = threading.Lock()


def is_model_object(value: object) -> bool:
    """Whether `value` is a pydantic-ai model object (not a model string)."""
    return isinstance(value, Model)


def model_label(model: str | Model) -> str:
    """The string a model goes by: a model string itself, or the label of a model object."""
    if isinstance(model, str):
        return model
    key = id(model)
    with _lock:
        label = _labels.get(key)
        if label is None:
            name = model.model_name
            label = f"{name if ':' in name else f'{model.system}:{name}'}#{next(_numbers)}"
            _labels[key] = label
            # forget the label with its object (a later object may get the same id); an object
            # without weak references keeps its label for the process
            with contextlib.suppress(TypeError):
                weakref.finalize(model, _labels.pop, key, None)
    return label
