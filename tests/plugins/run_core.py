"""Runs the `mixseek` CLI in a process of its own with the scripted models of `e2e/scripted.py`, plus
`script:lookup` (a model that calls the `lookup` tool once, then answers with what it returned), and with
`core_plugins` importable (Temporal workers it starts run this script too)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).parent))

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from scripted import World

from mixseek.cli.app import app
from mixseek.cli.entry import leave
from mixseek.llm import override_models
from scripting import tool_returns


def lookup(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returned = list(tool_returns(messages).values())
    if not returned:
        return ModelResponse(
            parts=[ToolCallPart("lookup", {"key": "capital"})],
            usage=RequestUsage(input_tokens=20, output_tokens=4),
        )
    return ModelResponse(
        parts=[TextPart(f"lookup said {returned[0]}")], usage=RequestUsage(input_tokens=25, output_tokens=6)
    )


def main() -> None:
    models = {**World().models(), "script:lookup": FunctionModel(lookup, model_name="lookup")}
    try:
        with override_models(models):
            app(sys.argv[1:], prog_name="mixseek")
    except SystemExit as exc:
        leave(exc.code)


if __name__ == "__main__":
    main()
