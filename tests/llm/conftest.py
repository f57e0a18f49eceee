"""Shared fixtures for mixseek.llm tests: a clean credential environment."""

from __future__ import annotations

import pytest

from mixseek.llm.credentials import CREDENTIAL_RULES

_ALL_CREDENTIAL_VARS = sorted(
    {name for rule in CREDENTIAL_RULES.values() for requirement in rule for name in requirement}
    | {"PYDANTIC_AI_GATEWAY_API_KEY", "PAIG_API_KEY"}
)


@pytest.fixture(autouse=True)
def clean_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with no provider credential in the environment."""
    for name in _ALL_CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)
