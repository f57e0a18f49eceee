"""mixseek's own prompt texts, named for the models that must not answer with them. A small model copies the
instructions around it as its answer; the embedded model finds the system prompt and reply format in the
request, but template words reach it inside the user's turn, so whoever renders templates names them here
(`own_texts`) and the model reads `current_own_texts`."""

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
