"""While an execution runs, the garbage collector runs less often (a quarter of a 64-team run's
CPU went to it); afterwards the process has the collector settings it had before."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.scripted import World, write_workspace
from mixseek import load_workspace
from mixseek.llm import override_models
from mixseek.orchestrator.collector import YOUNG_THRESHOLD, fewer_collections


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


async def test_an_execution_collects_less_often_and_restores_the_settings(
    thresholds: tuple[int, int, int], tmp_path: Path
) -> None:
    seen: list[tuple[int, int, int]] = []
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    with override_models(World().models()):
        async with load_workspace(ws).iter("課題") as execution:
            async for _ in execution:
                seen.append(gc.get_threshold())
    assert execution.result.status == "completed"
    assert (YOUNG_THRESHOLD, 10, 10) in seen  # while the rounds ran
    assert gc.get_threshold() == thresholds


async def test_overlapping_executions_restore_the_settings_only_when_the_last_ends(
    thresholds: tuple[int, int, int],
) -> None:
    first_inside, second_inside, first_done = asyncio.Event(), asyncio.Event(), asyncio.Event()
    after_first: list[tuple[int, int, int]] = []

    async def first() -> None:
        with fewer_collections():
            first_inside.set()
            await second_inside.wait()
        after_first.append(gc.get_threshold())
        first_done.set()

    async def second() -> None:
        await first_inside.wait()
        with fewer_collections():
            second_inside.set()
            await first_done.wait()

    await asyncio.gather(first(), second())
    assert after_first == [(YOUNG_THRESHOLD, 10, 10)]  # the second one was still running
    assert gc.get_threshold() == thresholds


def test_a_process_that_turned_collection_off_keeps_it_off() -> None:
    before = gc.get_threshold()
    gc.set_threshold(0)
    try:
        with fewer_collections():
            assert gc.get_threshold()[0] == 0
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)
