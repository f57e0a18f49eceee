"""RoundPromptContext validation (seed 000 §6.2) and the store Protocol."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from mixseek.prompt_builder import LeaderBoardSource, RoundPromptContext

from .support import ListStore, round_state

VALID: dict[str, Any] = {
    "user_prompt": "データ分析タスク",
    "round_number": 1,
    "round_history": [],
    "team_id": "team1",
    "team_name": "Alpha",
    "execution_id": "exec1",
}


def _messages(exc: ValidationError) -> list[str]:
    return [str(error["ctx"]["error"]) if "ctx" in error else error["msg"] for error in exc.errors()]


def test_valid_context_defaults_store_to_none() -> None:
    context = RoundPromptContext(**VALID)
    assert context.store is None
    assert context.round_history == []


@pytest.mark.parametrize("round_number", [0, -1])
def test_round_number_must_be_positive(round_number: int) -> None:
    with pytest.raises(ValidationError) as info:
        RoundPromptContext(**{**VALID, "round_number": round_number})
    assert _messages(info.value) == ["round_number must be >= 1"]


@pytest.mark.parametrize("field", ["user_prompt", "team_id", "team_name", "execution_id"])
@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_empty_string_fields_are_named(field: str, value: str) -> None:
    with pytest.raises(ValidationError) as info:
        RoundPromptContext(**{**VALID, field: value})
    assert _messages(info.value) == [f"{field} cannot be empty"]
    assert f"{field} cannot be empty" in str(info.value)


def test_all_problems_reported_together() -> None:
    with pytest.raises(ValidationError) as info:
        RoundPromptContext(**{**VALID, "round_number": 0, "team_id": "", "execution_id": ""})
    assert _messages(info.value) == [
        "round_number must be >= 1",
        "team_id cannot be empty",
        "execution_id cannot be empty",
    ]


def test_round_history_holds_round_states() -> None:
    context = RoundPromptContext(**{**VALID, "round_number": 2, "round_history": [round_state(1)]})
    assert context.round_history[0].round_number == 1


def test_any_object_with_the_method_is_a_store() -> None:
    store = ListStore([])
    assert isinstance(store, LeaderBoardSource)
    assert RoundPromptContext(**VALID, store=store).store is store


def test_object_without_the_method_is_rejected() -> None:
    with pytest.raises(ValidationError, match="store"):
        RoundPromptContext(**VALID, store=object())


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="extra"):
        RoundPromptContext(**VALID, leaderboard=[])  # type: ignore[call-arg]
