"""Code written against seeds 000/001 catches what the prompt builder raises.

Seed 001 §3.1: a bad settings or context value is pydantic's `ValidationError` (a `ValueError`)
with seed 000 §6's message; a bad template a Jinja2 `TemplateError`; a bad $TZ a `ValueError`.
A bad `configs/prompt_builder.toml` loaded through `UserPromptBuilder` is reported by mixseek's
loader (naming the file and the key), and is still a `ValueError` for that code.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from jinja2 import TemplateError
from pydantic import ValidationError

from mixseek.errors import ConfigError, InputError, MixseekError
from mixseek.prompt_builder import PromptBuilderSettings, RoundPromptContext, UserPromptBuilder
from mixseek.round_controller.models import RoundState

from .support import write_config

CONTEXT: dict[str, Any] = {
    "user_prompt": "データ分析タスク",
    "round_number": 1,
    "round_history": [],
    "team_id": "team1",
    "team_name": "Alpha",
    "execution_id": "exec1",
}


def _messages(exc: ValidationError) -> list[tuple[str, str]]:
    """(field, message) of each problem; a validator's own message without pydantic's prefix."""
    return [
        (str(error["loc"][0]), str(error["ctx"]["error"]) if error["type"] == "value_error" else error["msg"])
        for error in exc.errors()
    ]


@pytest.mark.parametrize("field", ["team_user_prompt", "evaluator_user_prompt", "judgment_user_prompt"])
def test_empty_template_in_file_is_a_value_error_naming_file_and_key(workspace: Path, field: str) -> None:
    path = write_config(workspace, f'[prompt_builder]\n{field} = ""\n')
    with pytest.raises(ValueError) as info:
        UserPromptBuilder(workspace)
    assert isinstance(info.value, ConfigError)
    assert isinstance(info.value, InputError)
    assert str(info.value) == f"{path}: prompt_builder.{field}: {field} cannot be empty"


def test_unreadable_file_is_a_value_error(workspace: Path) -> None:
    path = write_config(workspace, "[prompt_builder\n")
    with pytest.raises(ValueError) as info:
        UserPromptBuilder(workspace)
    assert str(info.value).startswith(f"{path}: ")


def test_template_syntax_error_is_a_template_error_and_a_value_error(workspace: Path) -> None:
    path = write_config(workspace, '[prompt_builder]\nteam_user_prompt = "line 1\\n{{ user_prompt "\n')
    with pytest.raises(TemplateError) as info:
        UserPromptBuilder(workspace)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, MixseekError)
    assert str(info.value).startswith(f"team_user_prompt ({path}): Jinja2 template syntax error at line 2: ")


def test_settings_constructed_with_an_empty_template() -> None:
    with pytest.raises(ValidationError) as info:
        PromptBuilderSettings(team_user_prompt="  ")
    assert _messages(info.value) == [("team_user_prompt", "team_user_prompt cannot be empty")]


def test_context_messages_are_seed_000_section_6_2() -> None:
    bad = {"round_number": 0, "user_prompt": "", "team_id": " ", "team_name": "", "execution_id": "\t"}
    with pytest.raises(ValidationError) as info:
        RoundPromptContext(**{**CONTEXT, **bad})
    assert _messages(info.value) == [
        ("user_prompt", "user_prompt cannot be empty"),
        ("round_number", "round_number must be >= 1"),
        ("team_id", "team_id cannot be empty"),
        ("team_name", "team_name cannot be empty"),
        ("execution_id", "execution_id cannot be empty"),
    ]


def test_round_state_refuses_a_round_below_1_and_a_score_that_is_not_finite() -> None:
    """A score may lie outside 0–100 (a metric declares its scale), never NaN or an infinity."""
    now = datetime(2025, 11, 19, 12, 0, 0)
    with pytest.raises(ValidationError) as info:
        RoundState(
            round_number=0,
            submission_content="x",
            evaluation_score=float("nan"),
            round_started_at=now,
            round_ended_at=now,
        )
    assert _messages(info.value) == [
        ("round_number", "Input should be greater than or equal to 1"),
        ("evaluation_score", "Input should be a finite number"),
    ]
    for score in (-100.0, 100.5):
        state = RoundState(
            round_number=1,
            submission_content="x",
            evaluation_score=score,
            round_started_at=now,
            round_ended_at=now,
        )
        assert state.evaluation_score == score


def test_invalid_tz_is_a_value_error_with_seed_000_section_6_3_message(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder = UserPromptBuilder(workspace)
    monkeypatch.setenv("TZ", "Mars/Olympus")
    with pytest.raises(ValueError) as info:
        builder.build_evaluator_prompt("課題", "提出")
    assert str(info.value) == (
        "Invalid timezone in TZ environment variable: Mars/Olympus. "
        "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
    )
