"""Shared fixtures for mixseek.llm tests: a clean credential environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mixseek.llm.credentials import CREDENTIAL_RULES
from mixseek.llm.local_model.engine import close_engine

_ALL_CREDENTIAL_VARS = sorted(
    {name for rule in CREDENTIAL_RULES.values() for requirement in rule for name in requirement}
    | {"PYDANTIC_AI_GATEWAY_API_KEY", "PAIG_API_KEY"}
)


@pytest.fixture(autouse=True)
def clean_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with no provider credential in the environment."""
    for name in _ALL_CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def model_file(tmp_path: Path) -> Iterator[Path]:
    """A file that passes for a GGUF model (no tensors: no self-test), for scripted generations."""
    path = tmp_path / "scripted.gguf"
    path.write_bytes(b"GGUF" + bytes(28))
    yield path
    close_engine(path)
