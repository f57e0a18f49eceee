"""Models given as pydantic-ai `Model` objects in code, rather than as model strings.

A config written in Python may say `model=OpenAIChatModel(...)` (or any other `Model`) wherever a
file says `model = "openai:gpt-4o"`. Where mixseek needs a string for such a model — the usage it
stores per model, per-model rate limits, snapshots and messages — the object goes by a label made
up once per object and process: `openai:gpt-4o#1`, `test:test#2`. The `#n` keeps two objects of the
same model (say, with different API keys) apart, and keeps a label from ever reading as a model
string that `create_model` would resolve.
"""

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
