"""register_model_provider / unregister_model_provider."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic_ai.models import Model
from pydantic_ai.models.test import TestModel

from mixseek.errors import MixseekError
from mixseek.llm import (
    check_credentials,
    create_model,
    register_model_provider,
    registered_prefixes,
    required_env_var,
    unregister_model_provider,
)
from mixseek.llm.registry import registered_provider


@pytest.fixture
def acme() -> Iterator[list[str]]:
    calls: list[str] = []

    def factory(name: str) -> Model:
        calls.append(name)
        return TestModel(custom_output_text=f"acme {name}")

    register_model_provider("acme", factory)
    yield calls
    unregister_model_provider("acme")


def test_registered_prefix_calls_factory_with_rest(acme: list[str]) -> None:
    model = create_model("acme:big:model-v2", role="judgment")
    assert isinstance(model, TestModel)
    assert model.custom_output_text == "acme big:model-v2"
    assert acme == ["big:model-v2"]
    assert "acme" in registered_prefixes()


def test_registered_prefix_skips_credential_check(acme: list[str]) -> None:
    check_credentials("acme:x", role="judgment")
    assert required_env_var("acme:x") is None


def test_unregister_restores_unknown_provider(acme: list[str]) -> None:
    unregister_model_provider("acme")
    with pytest.raises(MixseekError, match="unknown provider 'acme'"):
        create_model("acme:x", role="judgment")
    unregister_model_provider("acme")  # idempotent


def test_registered_prefix_shadows_pydantic_ai_provider() -> None:
    register_model_provider("openai", lambda name: TestModel(custom_output_text=name))
    try:
        model = create_model("openai:gpt-4o", role="judgment")  # no OPENAI_API_KEY needed
        assert isinstance(model, TestModel)
    finally:
        unregister_model_provider("openai")
    assert registered_provider("openai") is None


def test_duplicate_registration_needs_replace(acme: list[str]) -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_model_provider("acme", lambda name: TestModel())
    replacement = TestModel(custom_output_text="replaced")
    register_model_provider("acme", lambda name: replacement, replace=True)
    assert create_model("acme:x", role="judgment") is replacement


@pytest.mark.parametrize("prefix", ["", "a:b", " acme", "ac me"])
def test_invalid_prefix(prefix: str) -> None:
    with pytest.raises(ValueError, match="invalid model provider prefix"):
        register_model_provider(prefix, lambda name: TestModel())


def test_factory_errors_name_model_and_role() -> None:
    def broken(name: str) -> Model:
        raise RuntimeError(f"no such model {name}")

    register_model_provider("broken", broken)
    try:
        with pytest.raises(MixseekError) as info:
            create_model("broken:x", role="member 'analyst' of team 'alpha'")
    finally:
        unregister_model_provider("broken")
    assert str(info.value) == (
        "model 'broken:x' for member 'analyst' of team 'alpha': RuntimeError: no such model x"
    )
    assert isinstance(info.value.__cause__, RuntimeError)


def test_factory_must_return_a_model() -> None:
    register_model_provider("odd", lambda name: "not a model")  # type: ignore[arg-type,return-value]
    try:
        with pytest.raises(MixseekError, match="returned str, not a pydantic-ai Model"):
            create_model("odd:x", role="judgment")
    finally:
        unregister_model_provider("odd")


def test_check_callable_runs_for_check_credentials() -> None:
    def check(name: str) -> None:
        if name != "ok":
            raise MixseekError(f"unknown acme model {name!r}")

    register_model_provider("checked", lambda name: TestModel(), check=check)
    try:
        check_credentials("checked:ok", role="judgment")
        with pytest.raises(MixseekError) as info:
            check_credentials("checked:nope", role="judgment")
    finally:
        unregister_model_provider("checked")
    assert str(info.value) == "model 'checked:nope' for judgment: unknown acme model 'nope'"


def test_local_is_registered_by_default() -> None:
    assert "local" in registered_prefixes()
