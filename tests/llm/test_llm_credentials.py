"""The provider -> environment variable table."""

from __future__ import annotations

import contextlib

import pytest
from pydantic_ai.providers import infer_provider_class

from mixseek.llm.credentials import CREDENTIAL_RULES, missing_env_var, primary_env_var


def test_google_accepts_either_key() -> None:
    assert missing_env_var("google", {}) == "GOOGLE_API_KEY"
    assert missing_env_var("google", {"GEMINI_API_KEY": "k"}) is None
    assert missing_env_var("google", {"GOOGLE_API_KEY": "k"}) is None


def test_all_requirements_must_hold() -> None:
    assert missing_env_var("azure", {}) == "AZURE_OPENAI_API_KEY"
    assert missing_env_var("azure", {"AZURE_OPENAI_API_KEY": "k"}) == "AZURE_OPENAI_ENDPOINT"
    assert (
        missing_env_var("azure", {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "https://x"}) is None
    )


def test_providers_without_rules_need_nothing() -> None:
    assert missing_env_var("bedrock", {}) is None
    assert primary_env_var("bedrock") is None
    assert primary_env_var("google-cloud") is None


def test_gateway_prefix() -> None:
    assert missing_env_var("gateway/anthropic", {"PAIG_API_KEY": "k"}) is None
    assert primary_env_var("gateway/openai") == "PYDANTIC_AI_GATEWAY_API_KEY"


@pytest.mark.parametrize("provider", sorted(CREDENTIAL_RULES))
def test_every_rule_names_a_provider_pydantic_ai_knows(provider: str) -> None:
    with contextlib.suppress(ImportError):  # ImportError: known, SDK not installed here
        infer_provider_class(provider)
