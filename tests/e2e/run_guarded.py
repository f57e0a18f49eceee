"""Runs the `mixseek` CLI as the installed command does (behind `mixseek.cli.entry`'s guard, with
every import inside it) with the scripted models of `scripted.py`.

Test-only: INTERRUPT_AT=<point> makes the process send itself SIGINT — a Ctrl-C, delivered the
way the terminal delivers it — at one exact moment of `mixseek exec`:

- config, store-check: right after the config was loaded / the store was checked;
- scan: while the start-up check's query runs in DuckDB (a query made long for the purpose);
- open:N: as the store's file is opened for the N-th time (open:1 is the start-up check);
- build: while the orchestrator builds the teams' models;
- create, created, claim: before / after the execution's row is written; before a resume claims it;
- round:N: at the first leader call of round N;
- finish, finished: before / after the final status is written;
- summary: as the summary is printed.

FILL_DISK=<dir> with FILL_DISK_AT=<round> fills the disk holding <dir> at the first leader
call of that round, FILL_DISK_AT=finish right before the final status is written (the file to
delete to free it again is <dir>/filler); FILL_DISK_LEAVE=<bytes> leaves that much room.
KEEP_STORE_OPEN=1 keeps the store's file open between operations (it is closed, and so
checkpointed, when the execution ends), so everything the run wrote is still to be checkpointed
then, whatever the machine's speed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from mixseek.cli.entry import run_guarded

POINT = os.environ.get("INTERRUPT_AT", "")


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def _once(point: str) -> Callable[[], bool]:
    """True the first time it is asked while INTERRUPT_AT is `point`."""
    fired: list[bool] = []

    def due() -> bool:
        if not point or point != POINT or fired:
            return False
        fired.append(True)
        return True

    return due


def _around(owner: Any, name: str, *, before: str | None = None, after: str | None = None) -> None:
    """Wrap owner.name (a function or coroutine function) to press Ctrl-C before and/or after it."""
    import inspect

    original = getattr(owner, name)
    due_before, due_after = _once(before or ""), _once(after or "")
    if inspect.iscoroutinefunction(original):

        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            if due_before():
                ctrl_c()
            result = await original(*args, **kwargs)
            if due_after():
                ctrl_c()
            return result

        setattr(owner, name, wrapped_async)
        return

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if due_before():
            ctrl_c()
        result = original(*args, **kwargs)
        if due_after():
            ctrl_c()
        return result

    setattr(owner, name, wrapped)


def _install() -> None:
    # `exec` imports what it runs when it runs (so that `mixseek --help` stays quick): the
    # functions are wrapped where they are defined, which is where it finds them
    from mixseek.cli import exec_cmd, summary_view
    from mixseek.config import bundle
    from mixseek.orchestrator import components
    from mixseek.storage import health
    from mixseek.storage._connection import Connector
    from mixseek.storage.aggregation_store import AggregationStore

    _around(bundle, "load_execution_config", after="config")
    _around(health, "check_store", after="store-check")
    _around(components, "create_team", before="build")
    _around(AggregationStore, "create_execution", before="create", after="created")
    _around(AggregationStore, "claim_execution", before="claim")
    _around(AggregationStore, "finish_execution", before="finish", after="finished")
    _around(summary_view, "print_summary", before="summary")
    _around(exec_cmd, "print_json", before="summary")
    if os.environ.get("KEEP_STORE_OPEN") == "1":
        from mixseek.storage import aggregation_store

        aggregation_store.WRITER_IDLE_CLOSE_SECONDS = 24 * 3600.0
    if os.environ.get("FILL_DISK_AT") == "finish":
        _fill_before(AggregationStore, "finish_execution")
    if POINT == "scan":
        from mixseek.storage import health

        def scan_then_wait(conn: Any, **kwargs: Any) -> Any:
            # DuckDB reports a Ctrl-C only once the running query ends: a query of a second or
            # so, then a wait that the Ctrl-C ends if it came after the query
            threading.Timer(0.2, ctrl_c).start()
            conn.execute("SELECT sum(length(repeat(i::VARCHAR, 200))) FROM range(3000000) t(i)").fetchall()
            time.sleep(600)

        health._read_everything = scan_then_wait  # type: ignore[assignment]
    if POINT.startswith("open:"):
        opens: list[int] = []
        nth = int(POINT.split(":")[1])
        original_open = Connector._open

        def counted_open(self: Connector) -> Any:
            opens.append(1)
            if len(opens) == nth:
                ctrl_c()
            return original_open(self)

        Connector._open = counted_open  # type: ignore[method-assign]


def _fill() -> Path:
    from store_damage import fill_disk

    return fill_disk(Path(os.environ["FILL_DISK"]), leave=int(os.environ.get("FILL_DISK_LEAVE", "0")))


def _fill_before(owner: Any, name: str) -> None:
    """Fill the disk (FILL_DISK) the first time owner.name (a coroutine function) is called."""
    original = getattr(owner, name)
    filled: list[Path] = []

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not filled:
            filled.append(_fill())
        return await original(*args, **kwargs)

    setattr(owner, name, wrapped)


def _cli() -> None:
    from scripted import World

    from mixseek.cli.app import app
    from mixseek.llm import override_models

    _install()
    leader_round = _once(POINT)

    filled: list[Path] = []

    def hook(team: str, round_number: int) -> None:
        if f"round:{round_number}" == POINT and leader_round():
            ctrl_c()
        if os.environ.get("FILL_DISK_AT") == str(round_number) and not filled:
            filled.append(_fill())

    with override_models(World(on_leader_call=hook).models()):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    run_guarded(_cli)
