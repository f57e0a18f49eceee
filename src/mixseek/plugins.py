"""Loading a user's class or function named as `package.module:Name` or `path/to/file.py:Name`
(custom member agents, metrics and workflow function executors)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import io
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from mixseek.errors import InputError


def _check_source_text(class_path: str, file: Path, label: str) -> None:
    """The file must decode in its declared encoding (UTF-8 by default), else one line naming the byte."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"{label} '{class_path}': cannot read {file}: {exc.strerror or exc}") from None
    encoding = "utf-8"
    with contextlib.suppress(SyntaxError):  # no usable coding cookie: the UTF-8 check names the byte
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        encoding_label = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise InputError(
            f"{label} '{class_path}': {file}: not {encoding_label} text "
            f"(byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _load_file(class_path: str, file: Path, label: str) -> ModuleType:
    if not file.is_file():
        raise InputError(f"{label} '{class_path}': file not found: {file}")
    _check_source_text(class_path, file, label)
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    module_name = f"mixseek_plugin_{file.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise InputError(f"{label} '{class_path}': cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise InputError(f"{label} '{class_path}': importing {file} failed: {exc}") from exc
    return module


def _load_attribute(ref: str, label: str, form: str, *, base_dir: Path | None) -> tuple[str, object]:
    """The name after the colon of `ref` and the object it names in its module or file."""
    module_part, sep, name = ref.rpartition(":")
    if not sep or not module_part or not name:
        raise InputError(f"{label} '{ref}': expected '{form}'")
    if module_part.endswith(".py"):
        file = Path(module_part).expanduser()
        if not file.is_absolute() and base_dir is not None:
            file = base_dir / file
        module = _load_file(ref, file, label)
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise InputError(f"{label} '{ref}': cannot import module '{module_part}': {exc}") from exc
        except Exception as exc:  # the module itself fails: a syntax error, an exception at import
            raise InputError(f"{label} '{ref}': importing module '{module_part}' failed: {exc}") from exc
    value = getattr(module, name, None)
    if value is None:
        raise InputError(f"{label} '{ref}': module has no attribute '{name}'")
    return name, value


def load_class(class_path: str, base: type, *, base_dir: Path | None = None) -> type[Any]:
    """The class at `class_path`, which must subclass `base`."""
    class_name, cls = _load_attribute(
        class_path, "class_path", "module:Class' or 'path/to/file.py:Class", base_dir=base_dir
    )
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InputError(
            f"class_path '{class_path}': {class_name} must subclass {base.__module__}.{base.__name__}"
        )
    return cls


def load_function(ref: str, *, base_dir: Path | None = None) -> Callable[..., Any]:
    """The function at `ref` (`module:function` or `path/to/file.py:function`)."""
    name, fn = _load_attribute(
        ref, "function", "module:function' or 'path/to/file.py:function", base_dir=base_dir
    )
    if isinstance(fn, type) or not callable(fn):
        raise InputError(f"function '{ref}': {name} is not a function")
    return fn
