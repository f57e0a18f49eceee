"""build_model_settings."""

from __future__ import annotations

from mixseek.llm import build_model_settings


def test_nothing_set_gives_empty_settings() -> None:
    assert build_model_settings() == {}
    assert build_model_settings(temperature=None, max_tokens=None, timeout_seconds=None) == {}


def test_all_values() -> None:
    settings = build_model_settings(
        temperature=0.2,
        max_tokens=512,
        top_p=0.9,
        seed=7,
        stop_sequences=("END", "STOP"),
        timeout_seconds=300,
        max_retries=3,
    )
    assert settings == {
        "temperature": 0.2,
        "max_tokens": 512,
        "top_p": 0.9,
        "seed": 7,
        "stop_sequences": ["END", "STOP"],
        "timeout": 300,
        "max_retries": 3,
    }


def test_zero_values_are_kept() -> None:
    assert build_model_settings(temperature=0.0, seed=0, max_retries=0, stop_sequences=[]) == {
        "temperature": 0.0,
        "seed": 0,
        "max_retries": 0,
        "stop_sequences": [],
    }


def test_partial() -> None:
    assert build_model_settings(temperature=1.0, timeout_seconds=12.5) == {
        "temperature": 1.0,
        "timeout": 12.5,
    }
