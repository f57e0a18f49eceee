"""Runs the `mixseek` CLI in a separate process with scripted models for code-exec members (test-only).

A real process, so that its environment holds what the test gives it from the start (what
/proc/<pid>/environ shows). `script:coder` calls `run_python` once with the text of the file
CODE_EXEC_SCRIPT and answers with what the tool returned; `script:leader` delegates to every member
at once, then answers with their answers joined. Each model call appends a line to MODEL_CALLS.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from pydantic_ai import models
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import tool_returns


def _record(name: str) -> None:
    with open(os.environ["MODEL_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(name + "\n")


def coder(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    _record("coder")
    returns = tool_returns(messages)
    if "run_python" in returns:
        return ModelResponse(parts=[TextPart(returns["run_python"])])
    code = Path(os.environ["CODE_EXEC_SCRIPT"]).read_text(encoding="utf-8")
    return ModelResponse(parts=[ToolCallPart("run_python", {"code": code})])


def leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    _record("leader")
    returns = tool_returns(messages)
    if returns:
        return ModelResponse(parts=[TextPart("\n".join(returns[t.name] for t in info.function_tools))])
    return ModelResponse(parts=[ToolCallPart(t.name, {"task": "run it"}) for t in info.function_tools])


def main() -> None:
    models.ALLOW_MODEL_REQUESTS = False
    scripted = {"script:coder": FunctionModel(coder), "script:leader": FunctionModel(leader)}
    with override_models(scripted):
        app(prog_name="mixseek")


if __name__ == "__main__":
    main()
