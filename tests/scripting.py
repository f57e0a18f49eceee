"""What scripted models (pydantic-ai `FunctionModel`s) read from the messages they are sent."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart


def first_user_text(messages: list[ModelMessage]) -> str:
    """The user prompt that started the run."""
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return "".join(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))


def tool_returns(messages: list[ModelMessage]) -> dict[str, str]:
    """What each tool returned so far, by tool name."""
    return {
        part.tool_name: str(part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
