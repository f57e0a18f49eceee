"""Text settings that may be left out but, when given, must say something."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ValidationInfo


def _not_blank(value: str | None, info: ValidationInfo) -> str | None:
    if value is not None and not value.strip():
        raise ValueError(f"{info.field_name} cannot be empty")
    return value


OptionalText = Annotated[str | None, AfterValidator(_not_blank)]
"""None (the built-in default applies) or text that is not only white space."""
