"""`create_model`: the one place a model string becomes a pydantic-ai `Model`: an active `override_models`
block, `test`, a registered prefix (`local:`), then a pydantic-ai provider (known, SDK installed, credentials
present). Every failure is an `InputError` naming the model string and the role."""

from __future__ import annotations

import re

from pydantic_ai.exceptions import UserError
from pydantic_ai.models import Model, infer_model

from mixseek.errors import InputError, MissingCredentialsError
from mixseek.llm.builtin import missing_sdk_error
from mixseek.llm.checks import (
    call_plugin,
    check_builtin,
    check_credentials,
    describe_failure,
    required_env_var,
)
from mixseek.llm.middleware import apply_wrappers
from mixseek.llm.model_objects import model_label
from mixseek.llm.model_string import TEST_MODEL, ModelString, parse_model_string
from mixseek.llm.overrides import overridden_model
from mixseek.llm.redacting import RedactingModel
from mixseek.llm.registry import ModelProvider, registered_provider
from mixseek.llm.retrying import SingleAttemptModel

__all__ = ["check_credentials", "create_model", "required_env_var"]

_SET_ENV_VAR_RE = re.compile(r"Set the `([A-Z][A-Z0-9_]*)` environment variable")


def create_model(model: str | Model, *, role: str) -> Model:
    """Build the pydantic-ai model named by `model` for `role` (as "leader of team 'alpha'", for errors).
    Raises `MissingCredentialsError` for an unset credential variable, else `InputError`."""
    if isinstance(model, Model):
        return apply_wrappers(RedactingModel(SingleAttemptModel(model)), model_label(model), role)
    return apply_wrappers(_build_model(model, role), model, role)


def _build_model(model: str, role: str) -> Model:
    override = overridden_model(model)
    if override is not None:
        return override
    if model == TEST_MODEL:
        return infer_model(TEST_MODEL)

    spec = parse_model_string(model, role=role)
    plugin = registered_provider(spec.provider)
    if plugin is not None:
        return _from_plugin(plugin, spec, model, role)

    provider = spec.canonical_provider
    check_builtin(model, role, provider)
    try:
        built = infer_model(f"{provider}:{spec.name}")
    except ImportError as exc:
        raise missing_sdk_error(model, role, provider, exc) from exc
    except Exception as exc:
        env_var = _env_var_named_in(exc)
        if env_var is not None:
            raise MissingCredentialsError(model, role, env_var) from exc
        raise InputError(f"model {model!r} for {role} could not be created: {describe_failure(exc)}") from exc
    # one HTTP attempt per request (mixseek retries, above the governor); no echoed key gets in
    return RedactingModel(SingleAttemptModel(built))


def _from_plugin(plugin: ModelProvider, spec: ModelString, model: str, role: str) -> Model:
    result = call_plugin(plugin.factory, spec, model, role)
    if not isinstance(result, Model):
        raise InputError(
            f"model {model!r} for {role}: the {plugin.prefix!r} provider returned "
            f"{type(result).__name__}, not a pydantic-ai Model"
        )
    return result


def _env_var_named_in(exc: Exception) -> str | None:
    """The variable a pydantic-ai provider asks for when mixseek's table had no rule for it."""
    if not isinstance(exc, UserError):
        return None
    match = _SET_ENV_VAR_RE.search(str(exc))
    return match.group(1) if match else None
