"""A self-test of the embedded model in a child process: a llama.cpp build using CPU instructions the machine
lacks dies with SIGSEGV or SIGILL at the first call, in the child, as a `LocalModelSelfTestError` naming the
fix. A success is remembered under `$XDG_CACHE_HOME/mixseek/selftest` (keyed by libraries, model and CPU)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import platform
import signal
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from mixseek.errors import RuntimeFailure

logger = logging.getLogger("mixseek.llm.local")

PORTABLE_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
)
"""llama.cpp build options that run on any x86-64 CPU from 2013 on: no `-march=native`, no AMX."""
TIMEOUT_SECONDS = 300.0
"""How long the child may take; loading and decoding a few tokens of SmolLM2 takes about 1 s."""

_CHILD_SCRIPT = """
import os, sys
from llama_cpp import Llama
try:
    threads = max(1, len(os.sched_getaffinity(0)) - 1)
except (AttributeError, OSError):
    threads = max(1, (os.cpu_count() or 2) - 1)
llama = Llama(model_path=sys.argv[1], n_ctx=256, n_batch=256, n_threads=threads,
              n_threads_batch=threads, verbose=False)
tokens = llama.tokenize(("The quick brown fox jumps over the lazy dog. " * 6).encode(), add_bos=True)
llama.create_completion(tokens, max_tokens=4, temperature=0.0)
"""


class LocalModelSelfTestError(RuntimeFailure):
    """The embedded model's llama.cpp build crashed or failed on this machine."""


def reinstall_command() -> str:
    """The pip command rebuilding llama-cpp-python portably at the installed version (`--no-cache-dir`: pip
    reuses its own builds; `--no-binary`: no other index's wheel)."""
    prefix = f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --no-binary llama-cpp-python'
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return f"{prefix} 'llama-cpp-python>=0.3'"
    return f"{prefix} --force-reinstall --no-deps llama-cpp-python=={version}"


def child_command(model_path: Path) -> list[str]:
    """The command of the child process that loads `model_path` and decodes a few tokens."""
    return [sys.executable, "-c", _CHILD_SCRIPT, str(model_path)]


def has_tensors(model_path: Path) -> bool:
    """Whether the GGUF header announces tensors; a file without them is left to the engine's load."""
    try:
        with model_path.open("rb") as handle:
            header = handle.read(16)
    except OSError:
        return False
    if len(header) < 16 or header[:4] != b"GGUF":
        return False
    version, tensors = struct.unpack("<IQ", header[4:16])
    return bool(version >= 2 and tensors > 0)


def run_self_test(model_path: Path) -> None:
    """Run the child on `model_path` now (no cache) and remember a success; else `LocalModelSelfTestError`."""
    try:
        result = subprocess.run(
            child_command(model_path),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise LocalModelSelfTestError(
            f"the embedded model's self-test on {model_path} did not finish within "
            f"{TIMEOUT_SECONDS:.0f} s; if llama-cpp-python is broken, reinstall it portably: "
            f"{reinstall_command()}"
        ) from exc
    except OSError as exc:
        raise LocalModelSelfTestError(
            f"the embedded model's self-test could not start a Python process: {exc.strerror or exc}"
        ) from exc
    if result.returncode < 0:
        raise LocalModelSelfTestError(
            f"the embedded model crashed ({_signal_name(-result.returncode)}) in a self-test on "
            f"{model_path}: most likely this llama-cpp-python was built for CPU instructions this "
            f"machine does not enable; reinstall it portably: {reinstall_command()}"
        )
    if result.returncode != 0:
        detail = _last_line(result.stderr) or f"exit code {result.returncode}"
        raise LocalModelSelfTestError(
            f"the embedded model failed its self-test on {model_path}: {detail}; if llama-cpp-python "
            f"is broken, reinstall it portably: {reinstall_command()}"
        )
    _remember_success(model_path)


_passed: set[Path] = set()
_lock = threading.Lock()


def verify_local_model(model_path: Path) -> None:
    """Make sure the model at `model_path` runs, once per process and build (see the module doc)."""
    with _lock:
        if model_path in _passed:
            return
        if has_tensors(model_path) and not _success_marker(model_path).exists():
            logger.info("self-test of the embedded model %s in a child process", model_path)
            run_self_test(model_path)
        _passed.add(model_path)


def cache_dir() -> Path:
    """Where successful self-tests are remembered."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mixseek" / "selftest"


def _success_marker(model_path: Path) -> Path:
    identity = {
        "model": _file_identity(model_path),
        "llama_cpp": [_file_identity(p) for p in _llama_libraries()],
        "python": sys.executable,
        "host": platform.node(),
        "cpu": _cpu_identity(),
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    return cache_dir() / f"{digest}.ok"


def _remember_success(model_path: Path) -> None:
    marker = _success_marker(model_path)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=marker.parent, delete=False, suffix=".tmp") as handle:
            handle.write(f"{model_path}\n")
        os.replace(handle.name, marker)
    except OSError as exc:
        logger.debug("could not remember the self-test of %s in %s: %s", model_path, marker, exc)


def _llama_libraries() -> list[Path]:
    """llama-cpp-python's shared libraries (found without importing it), sorted by name."""
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    package = Path(next(iter(spec.submodule_search_locations)))
    suffixes = (".so", ".dylib", ".dll")
    return sorted(p for p in package.rglob("*") if p.is_file() and any(s in p.name for s in suffixes))


def _file_identity(path: Path) -> list[object]:
    try:
        stat = path.stat()
    except OSError:
        return [str(path)]
    return [str(path), stat.st_size, stat.st_mtime_ns]


def _cpu_identity() -> str:
    """The CPU model and feature flags (Linux), or the machine type elsewhere."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return platform.machine()
    found: dict[str, str] = {}
    for line in lines:
        key, _, value = line.partition(":")
        found.setdefault(key.strip(), value.strip())
    return f"{platform.machine()} {found.get('model name', '')} {found.get('flags', '')}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(output: bytes) -> str:
    lines = [line.strip() for line in output.decode("utf-8", errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""
