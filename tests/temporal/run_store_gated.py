"""`mixseek` with the scripted models of run_scripted.py, whose store holds its first write of
team results until a file exists.

Test-only: STORE_GATE=path — the first time the store queue's activities apply results, they
create `path.waiting` and wait until `path` exists (they keep beating meanwhile): team results
that arrive in the meantime must queue, and a test decides when they may be stored.
"""

from __future__ import annotations

import asyncio
import os
import runpy
from pathlib import Path
from typing import Any

from mixseek.orchestrator.temporal.client import StoreActivities

RUN_SCRIPTED = Path(__file__).parents[1] / "e2e" / "run_scripted.py"
POLL = 0.05  # how often the gate is looked at (a wait for an event, not a time)

_apply = StoreActivities._apply
_held: list[bool] = []


async def _gated_apply(self: StoreActivities, *args: Any, **kwargs: Any) -> None:
    if not _held:
        _held.append(True)
        gate = Path(os.environ["STORE_GATE"])
        gate.with_name(gate.name + ".waiting").touch()
        while not gate.exists():
            await asyncio.sleep(POLL)
    await _apply(self, *args, **kwargs)


StoreActivities._apply = _gated_apply  # type: ignore[method-assign]

if __name__ == "__main__":
    runpy.run_path(str(RUN_SCRIPTED), run_name="__main__")
