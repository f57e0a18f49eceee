"""mixseek.llm: model strings ("provider:model") to pydantic-ai models.

Importing this package imports no provider SDK; a provider's SDK is imported only when a model of
that provider is checked or created.
"""

from mixseek.llm.credentials import CREDENTIAL_RULES
from mixseek.llm.factory import check_credentials, create_model, required_env_var
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
