"""mixseek's own prompt texts, named for the models that must not answer with them.

A small model asked a question tends to copy the instructions around it (its system prompt, the
reply format, the fixed words of mixseek's prompt templates) and present them as its answer. The
embedded model refuses such copies (`local_model.echo`); it finds the system prompt and the reply
format in the request itself, but the template words reach it inside the user's turn, mixed with
the task and the history it may quote. Whoever renders prompts from templates names those words
here for the duration of the calls (`own_texts`); a model reads them with `current_own_texts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_OWN_TEXTS: ContextVar[tuple[str, ...]] = ContextVar("mixseek_own_texts", default=())


@contextmanager
def own_texts(texts: Iterable[str]) -> Iterator[None]:
    """Within this block (and the tasks it starts), `texts` count as mixseek's own words."""
    added = tuple(text for text in texts if text.strip())
    token = _OWN_TEXTS.set(_OWN_TEXTS.get() + added)
    try:
        yield
    finally:
        _OWN_TEXTS.reset(token)


def current_own_texts() -> tuple[str, ...]:
    """The texts named by the `own_texts` blocks around the caller."""
    return _OWN_TEXTS.get()
