"""mixseek.llm: model strings ("provider:model") to pydantic-ai models. Each name is loaded on first use, so
importing this package imports neither pydantic-ai nor a provider SDK; checking a model string loads
pydantic-ai only to look up its provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mixseek.lazy_exports import lazy_exports

# name -> module that defines it
_EXPORTS: dict[str, str] = {
    "CREDENTIAL_RULES": "mixseek.llm.credentials",
    "check_credentials": "mixseek.llm.checks",
    "required_env_var": "mixseek.llm.checks",
    "create_model": "mixseek.llm.factory",
    "ModelWrapper": "mixseek.llm.middleware",
    "wrap_models": "mixseek.llm.middleware",
    "ModelString": "mixseek.llm.model_string",
    "parse_model_string": "mixseek.llm.model_string",
    "ModelOverride": "mixseek.llm.overrides",
    "override_models": "mixseek.llm.overrides",
    "ModelCheck": "mixseek.llm.registry",
    "ModelFactory": "mixseek.llm.registry",
    "ModelProvider": "mixseek.llm.registry",
    "register_model_provider": "mixseek.llm.registry",
    "registered_prefixes": "mixseek.llm.registry",
    "unregister_model_provider": "mixseek.llm.registry",
    "build_model_settings": "mixseek.llm.settings",
}

__all__ = [
    "CREDENTIAL_RULES",
    "ModelCheck",
    "ModelFactory",
    "ModelOverride",
    "ModelProvider",
    "ModelString",
    "ModelWrapper",
    "build_model_settings",
    "check_credentials",
    "create_model",
    "override_models",
    "parse_model_string",
    "register_model_provider",
    "registered_prefixes",
    "required_env_var",
    "unregister_model_provider",
    "wrap_models",
]

if TYPE_CHECKING:
    from mixseek.llm.checks import check_credentials, required_env_var
    from mixseek.llm.credentials import CREDENTIAL_RULES
    from mixseek.llm.factory import create_model
    from mixseek.llm.middleware import ModelWrapper, wrap_models
    from mixseek.llm.model_string import ModelString, parse_model_string
    from mixseek.llm.overrides import ModelOverride, override_models
    from mixseek.llm.registry import (
        ModelCheck,
        ModelFactory,
        ModelProvider,
        register_model_provider,
        registered_prefixes,
        unregister_model_provider,
    )
    from mixseek.llm.settings import build_model_settings


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
