"""The garbage collector's pace while executions run.

Python collects its youngest objects after every 700 net allocations and walks its whole heap
after every hundred such collections. An execution allocates fast (pydantic-ai builds and drops
a graph of objects for every model request), so at 64 teams the collector ran 1,400 times in a
7 s run and took a quarter of the CPU, 1.3 s of it in ten walks over a heap that holds all of
pydantic-ai (`bench/orchestration.py`). A request's objects die young either way: collecting the
young after every 10,000 allocations frees the same memory (the same peak RSS) for a quarter of
that time.

The threshold is raised while any execution of the process runs; the last one to end puts back
what the first one found.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000
"""Net allocations between collections of the youngest generation while executions run."""

_lock = threading.Lock()
_running = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the youngest generation every `YOUNG_THRESHOLD` allocations inside the block."""
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            young, middle, old = _saved
            if young:  # 0: the process has turned automatic collection off; leave it so
                gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
