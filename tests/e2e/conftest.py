"""Fixtures of the whole-CLI tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .mounts import unmount


@pytest.fixture
def mounts() -> Iterator[list[Path]]:
    """Mount points (`mounts.tmpfs`, `mounts.read_only`) to undo after the test."""
    points: list[Path] = []
    yield points
    unmount(points)
