"""Checks of a model string that build nothing, for `config validate`, `--dry-run` and `exec`. pydantic-ai is
loaded only to look up a provider, so a workspace of `local:` or overridden models is checked quickly;
`factory` builds the models these checks pass."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from mixseek.errors import InputError, MissingCredentialsError, MixseekError, describe_exception
from mixseek.llm.builtin import ensure_known_provider
from mixseek.llm.credentials import missing_env_var, primary_env_var
from mixseek.llm.model_string import TEST_MODEL, ModelString, parse_model_string
from mixseek.llm.overrides import has_override
from mixseek.llm.registry import registered_prefixes, registered_provider

if TYPE_CHECKING:
    from pydantic_ai.models import Model


def check_credentials(model: str | Model, *, role: str) -> None:
    """Every check `create_model` does, raising its errors, without building the model."""
    if not isinstance(model, str) or model == TEST_MODEL or has_override(model):
        return
    spec = parse_model_string(model, role=role)
    plugin = registered_provider(spec.provider)
    if plugin is not None:
        if plugin.check is not None:
            call_plugin(plugin.check, spec, model, role)
        return
    check_builtin(model, role, spec.canonical_provider)


def required_env_var(model: str | Model) -> str | None:
    """The environment variable holding the credential `model` needs, set or not; None where none applies
    (model objects, `test`, overrides, registered prefixes, AWS or Google ADC, invalid strings)."""
    if not isinstance(model, str) or model == TEST_MODEL or has_override(model):
        return None
    try:
        spec = parse_model_string(model, role="")
    except MixseekError:
        return None
    if registered_provider(spec.provider) is not None:
        return None
    return primary_env_var(spec.canonical_provider)


def check_builtin(model: str, role: str, provider: str) -> None:
    """pydantic-ai knows `provider`, its SDK imports and its credential variable is set."""
    ensure_known_provider(model, role, provider, registered=registered_prefixes())
    env_var = missing_env_var(provider)
    if env_var is not None:
        raise MissingCredentialsError(model, role, env_var)


def call_plugin(function: Callable[[str], object], spec: ModelString, model: str, role: str) -> object:
    """A registered prefix's factory or check; what it raises becomes one line naming the model."""
    try:
        return function(spec.name)
    except Exception as exc:
        raise InputError(f"model {model!r} for {role}: {describe_failure(exc)}") from exc


def describe_failure(exc: BaseException) -> str:
    """mixseek's and pydantic-ai's own errors read without their type name."""
    if isinstance(exc, MixseekError) or _is_pydantic_ai_user_error(exc):
        lines = str(exc).strip().splitlines()
        return lines[0] if lines else type(exc).__name__
    return describe_exception(exc)


def _is_pydantic_ai_user_error(exc: BaseException) -> bool:
    # no instance can exist before pydantic-ai's exceptions module is loaded: no need to load it
    exceptions = sys.modules.get("pydantic_ai.exceptions")
    return exceptions is not None and isinstance(exc, exceptions.UserError)
