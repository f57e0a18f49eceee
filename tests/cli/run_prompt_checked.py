"""Runs the `mixseek` CLI in a separate process with scripted models that insist on the prompt.

EXPECT_PROMPT_FILE names a UTF-8 file: every leader, metric and judgment call fails unless the
prompt it is sent contains that file's whole text, so a run that completes has delivered it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from scripted import World

from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text


def checked(model: Model, expected: str) -> FunctionModel:
    assert isinstance(model, FunctionModel) and model.function is not None
    inner = model.function

    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if expected not in first_user_text(messages):
            raise AssertionError(f"{model.model_name} was not sent the whole prompt")
        return await inner(messages, info)  # type: ignore[misc]

    return FunctionModel(fn, model_name=model.model_name)


def main() -> None:
    expected = Path(os.environ["EXPECT_PROMPT_FILE"]).read_text(encoding="utf-8")
    models = {
        name: model if name == "script:member" else checked(model, expected)
        for name, model in World().models().items()
    }
    with override_models(models):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
