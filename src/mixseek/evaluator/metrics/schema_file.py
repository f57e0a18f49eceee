"""A `json_schema` metric's schema, inline or a file beside evaluator.toml, checkable without pydantic-ai."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mixseek.config.nesting import MAX_DEPTH, too_deep

TOO_DEEP_JSON = f"nested too deeply (more than {MAX_DEPTH} levels of objects and arrays)"


def load_schema(value: dict[str, Any] | str, base_dir: Path | None) -> dict[str, Any]:
    """The schema, checked against its own metaschema; ValueError says what is wrong with it."""
    if isinstance(value, str):
        path = Path(value).expanduser()
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ValueError(f"{path}: file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            schema = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{path}: not JSON: {exc}") from None
        except RecursionError:  # the parser recurses once per level
            raise ValueError(f"{path}: {TOO_DEEP_JSON}") from None
        if too_deep(schema):  # checking the schema recurses too
            raise ValueError(f"{path}: {TOO_DEEP_JSON}")
    else:
        schema = value
    if not isinstance(schema, dict):
        raise ValueError("a JSON Schema must be an object")
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON Schema: at {exc.json_path}: {exc.message}") from None
    except RecursionError:  # a schema that parsed, but whose check recursed past Python's limit
        raise ValueError(TOO_DEEP_JSON) from None
    return schema
