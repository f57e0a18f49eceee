"""Loading a user's class named as `package.module:Class` or `path/to/file.py:Class`.

Custom member agents and custom metrics are found this way, so a plugin
needs no change to mixseek itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import io
import sys
import tokenize
from pathlib import Path
from types import ModuleType
from typing import Any

from mixseek.errors import InputError


def _check_source_text(class_path: str, file: Path) -> None:
    """The file must decode in its declared encoding (UTF-8 by default), else one line naming the byte."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"class_path '{class_path}': cannot read {file}: {exc.strerror or exc}") from None
    encoding = "utf-8"
    with contextlib.suppress(SyntaxError):  # no usable coding cookie: the UTF-8 check names the byte
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        label = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise InputError(
            f"class_path '{class_path}': {file}: not {label} text "
            f"(byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _load_file(class_path: str, file: Path) -> ModuleType:
    if not file.is_file():
        raise InputError(f"class_path '{class_path}': file not found: {file}")
    _check_source_text(class_path, file)
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    module_name = f"mixseek_plugin_{file.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise InputError(f"class_path '{class_path}': cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise InputError(f"class_path '{class_path}': importing {file} failed: {exc}") from exc
    return module


def load_class(class_path: str, base: type, *, base_dir: Path | None = None) -> type[Any]:
    """The class at `class_path`, which must subclass `base`."""
    module_part, sep, class_name = class_path.rpartition(":")
    if not sep or not module_part or not class_name:
        raise InputError(f"class_path '{class_path}': expected 'module:Class' or 'path/to/file.py:Class'")
    if module_part.endswith(".py"):
        file = Path(module_part).expanduser()
        if not file.is_absolute() and base_dir is not None:
            file = base_dir / file
        module = _load_file(class_path, file)
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise InputError(
                f"class_path '{class_path}': cannot import module '{module_part}': {exc}"
            ) from exc
        except Exception as exc:  # the module itself fails: a syntax error, an exception at import
            raise InputError(
                f"class_path '{class_path}': importing module '{module_part}' failed: {exc}"
            ) from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise InputError(f"class_path '{class_path}': module has no attribute '{class_name}'")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InputError(
            f"class_path '{class_path}': {class_name} must subclass {base.__module__}.{base.__name__}"
        )
    return cls
