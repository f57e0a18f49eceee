from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mixseek.storage import AggregationStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "ws" / "mixseek.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[AggregationStore]:
    async with AggregationStore(db_path) as opened:
        yield opened
