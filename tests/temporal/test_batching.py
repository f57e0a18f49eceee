"""The workflow's group commit (`batching.Batcher`), on a plain event loop: what queues while a
write is under way goes into the next write, in order, within the size cap."""

from __future__ import annotations

import asyncio

import pytest

from mixseek.orchestrator.temporal.batching import Batcher


class Writes:
    """Records each batch; the first write waits for `release`, so others queue behind it."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.release = asyncio.Event()
        self.fail_on = fail_on

    async def __call__(self, items: list[str]) -> None:
        self.batches.append(items)
        if len(self.batches) == 1:
            await self.release.wait()
        if self.fail_on in items:
            raise RuntimeError(f"cannot store {self.fail_on}")


async def _queued_behind_first(
    batcher: Batcher[str], writes: Writes, items: list[str]
) -> list[asyncio.Task[None]]:
    tasks = [asyncio.create_task(batcher.put(item)) for item in items]
    while not writes.batches:
        await asyncio.sleep(0)
    return tasks


def test_items_arriving_during_a_write_share_the_next_in_order_within_the_cap() -> None:
    async def main() -> list[list[str]]:
        writes = Writes()
        batcher = Batcher(writes, size=len, max_size=5)
        tasks = await _queued_behind_first(batcher, writes, ["a"])
        tasks += [asyncio.create_task(batcher.put(item)) for item in ["bb", "cc", "dd", "e"]]
        await asyncio.sleep(0)
        writes.release.set()
        await asyncio.gather(*tasks)
        return writes.batches

    assert asyncio.run(main()) == [["a"], ["bb", "cc"], ["dd", "e"]]


def test_a_failed_write_fails_its_own_callers_only_and_a_cancelled_caller_is_not_written() -> None:
    async def main() -> tuple[list[list[str]], list[object]]:
        writes = Writes(fail_on="bad")
        batcher = Batcher(writes, size=len, max_size=100)
        first = await _queued_behind_first(batcher, writes, ["a"])
        gone = asyncio.create_task(batcher.put("gone"))
        queued = [asyncio.create_task(batcher.put(item)) for item in ["bad", "b"]]
        await asyncio.sleep(0)
        gone.cancel()
        writes.release.set()
        outcomes = await asyncio.gather(*first, *queued, return_exceptions=True)
        later = asyncio.create_task(batcher.put("c"))
        await later
        await batcher.idle()
        return writes.batches, [repr(o) for o in outcomes]

    batches, outcomes = asyncio.run(main())
    assert batches == [["a"], ["bad", "b"], ["c"]]
    assert outcomes == ["None", "RuntimeError('cannot store bad')", "RuntimeError('cannot store bad')"]


@pytest.mark.parametrize("count", [1, 5])
def test_idle_returns_once_nothing_is_being_written(count: int) -> None:
    async def main() -> list[list[str]]:
        writes = Writes()
        writes.release.set()
        batcher = Batcher(writes, size=len, max_size=100)
        await asyncio.gather(*(batcher.put(str(n)) for n in range(count)))
        await batcher.idle()
        return writes.batches

    assert [item for batch in asyncio.run(main()) for item in batch] == [str(n) for n in range(count)]
