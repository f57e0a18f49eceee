"""Fixtures: a clean environment, a workspace and a fixed clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import FIXED_NOW

ENV_VARS = (
    "TZ",
    "MIXSEEK_TEAM_USER_PROMPT",
    "MIXSEEK_EVALUATOR_USER_PROMPT",
    "MIXSEEK_JUDGMENT_USER_PROMPT",
    "MIXSEEK_MAX_SUBMISSION_HISTORY_ITEMS",
    "MIXSEEK_SUBMISSION_PREVIEW_CHARS",
    "MIXSEEK_MAX_LEADERBOARD_DISPLAY_TEAMS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "configs").mkdir(parents=True)
    return root


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> str:
    """Patch the clock where the builder uses it."""
    monkeypatch.setattr(
        "mixseek.prompt_builder.builder.get_current_datetime_with_timezone", lambda: FIXED_NOW
    )
    return FIXED_NOW
