"""`ModelRef`: the type of every `model` setting — a model string, or in code a pydantic-ai `Model`. A `Model`
object is used as it is and dumped as its label (`mixseek.llm.model_objects`). pydantic-ai is imported only
for a non-string value, so that loading config files stays cheap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

from pydantic import PlainSerializer, ValidatorFunctionWrapHandler, WithJsonSchema, WrapValidator

NOT_A_MODEL = "Input should be a valid string or a pydantic-ai Model"


def _model_or_string(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, str):
        return handler(value)
    from mixseek.llm.model_objects import is_model_object

    if is_model_object(value):
        return value
    raise ValueError(NOT_A_MODEL)


def _as_label(value: Any) -> Any:
    if isinstance(value, str):
        return value
    from mixseek.llm.model_objects import model_label

    return model_label(value)


if TYPE_CHECKING:
    from pydantic_ai.models import Model

    ModelRef: TypeAlias = str | Model
else:
    ModelRef = Annotated[
        Any,
        WrapValidator(_model_or_string),
        PlainSerializer(_as_label, return_type=str),
        WithJsonSchema({"type": "string"}),
    ]
