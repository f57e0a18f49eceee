"""Loading a user's class named as `package.module:Class` or `path/to/file.py:Class`.

Custom member agents and custom metrics are found this way, so a plugin
needs no change to mixseek itself.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from mixseek.errors import MixseekError


def _load_file(class_path: str, file: Path) -> ModuleType:
    if not file.is_file():
        raise MixseekError(f"class_path '{class_path}': file not found: {file}")
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    module_name = f"mixseek_plugin_{file.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise MixseekError(f"class_path '{class_path}': cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise MixseekError(f"class_path '{class_path}': importing {file} failed: {exc}") from exc
    return module


def load_class(class_path: str, base: type, *, base_dir: Path | None = None) -> type[Any]:
    """The class at `class_path`, which must subclass `base`."""
    module_part, sep, class_name = class_path.rpartition(":")
    if not sep or not module_part or not class_name:
        raise MixseekError(f"class_path '{class_path}': expected 'module:Class' or 'path/to/file.py:Class'")
    if module_part.endswith(".py"):
        file = Path(module_part).expanduser()
        if not file.is_absolute() and base_dir is not None:
            file = base_dir / file
        module = _load_file(class_path, file)
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise MixseekError(
                f"class_path '{class_path}': cannot import module '{module_part}': {exc}"
            ) from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise MixseekError(f"class_path '{class_path}': module has no attribute '{class_name}'")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise MixseekError(
            f"class_path '{class_path}': {class_name} must subclass {base.__module__}.{base.__name__}"
        )
    return cls
