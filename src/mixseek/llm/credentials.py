"""The environment variables each pydantic-ai provider (2.x) reads its credentials from: a rule's requirements
must all hold, each met by any one of its variables (the first is the one named). Providers that authenticate
otherwise (AWS, Google ADC, OAuth, LiteLLM) have no rule: their SDK's error becomes one line."""

from __future__ import annotations

import os
from collections.abc import Mapping

Requirement = tuple[str, ...]
Rule = tuple[Requirement, ...]

_OPENAI: Rule = (("OPENAI_API_KEY", "OPENAI_BASE_URL"),)
_GOOGLE: Rule = (("GOOGLE_API_KEY", "GEMINI_API_KEY"),)
_GATEWAY: Rule = (("PYDANTIC_AI_GATEWAY_API_KEY", "PAIG_API_KEY"),)

# Keyed by pydantic-ai's provider name (aliases such as `google-gla` are resolved before lookup).
CREDENTIAL_RULES: Mapping[str, Rule] = {
    "openai": _OPENAI,
    "openai-chat": _OPENAI,
    "openai-responses": _OPENAI,
    "openai-decisions": _OPENAI,
    "anthropic": (("ANTHROPIC_API_KEY",),),
    "google": _GOOGLE,
    "google-decisions": _GOOGLE,
    "groq": (("GROQ_API_KEY",),),
    "mistral": (("MISTRAL_API_KEY",),),
    "cohere": (("CO_API_KEY",),),
    "deepseek": (("DEEPSEEK_API_KEY",),),
    "openrouter": (("OPENROUTER_API_KEY",),),
    "ollama": (("OLLAMA_BASE_URL",),),
    "vllm": (("VLLM_BASE_URL",),),
    "azure": (("AZURE_OPENAI_API_KEY",), ("AZURE_OPENAI_ENDPOINT",)),
    "azure-responses": (("AZURE_OPENAI_API_KEY",), ("AZURE_OPENAI_ENDPOINT",)),
    "bedrock-mantle": (("AWS_DEFAULT_REGION", "AWS_REGION"),),
    "cerebras": (("CEREBRAS_API_KEY",),),
    "crusoe": (("CRUSOE_API_KEY",),),
    "xai": (("XAI_API_KEY",),),
    "huggingface": (("HF_TOKEN",),),
    "together": (("TOGETHER_API_KEY",),),
    "fireworks": (("FIREWORKS_API_KEY",),),
    "heroku": (("HEROKU_INFERENCE_KEY",),),
    "moonshotai": (("MOONSHOTAI_API_KEY",),),
    "nebius": (("NEBIUS_API_KEY",),),
    "ovhcloud": (("OVHCLOUD_API_KEY",),),
    "sambanova": (("SAMBANOVA_API_KEY",),),
    "alibaba": (("ALIBABA_API_KEY", "DASHSCOPE_API_KEY"),),
    "vercel": (("VERCEL_AI_GATEWAY_API_KEY", "VERCEL_OIDC_TOKEN"),),
    "meta": (("META_API_KEY",),),
    "zai": (("ZAI_API_KEY",),),
    "github": (("GITHUB_API_KEY",),),
    "github-copilot": (("GITHUB_COPILOT_API_KEY", "GITHUB_COPILOT_API_TOKEN", "COPILOT_GITHUB_TOKEN"),),
    "snowflake": (("SNOWFLAKE_TOKEN",), ("SNOWFLAKE_ACCOUNT",)),
    "typesafe": (("TYPESAFE_API_KEY",),),
    "system-one": (("SYSTEM_ONE_BASE_URL",),),
}


def credential_rule(provider: str) -> Rule:
    """The rule for a pydantic-ai provider name; empty when mixseek has nothing to check."""
    if provider.startswith("gateway/"):
        return _GATEWAY
    return CREDENTIAL_RULES.get(provider, ())


def primary_env_var(provider: str) -> str | None:
    """The variable that holds the provider's credential, or None when there is none to check."""
    rule = credential_rule(provider)
    return rule[0][0] if rule else None


def missing_env_var(provider: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable the user must set for `provider`, or None when its rule is satisfied."""
    env = os.environ if environ is None else environ
    for requirement in credential_rule(provider):
        if not any(env.get(name) for name in requirement):
            return requirement[0]
    return None
