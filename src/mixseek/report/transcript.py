"""A stored message history (a leader's round) as labelled plain-text parts a page can show, read with
pydantic-ai's `ModelMessagesTypeAdapter` (unknown kinds as JSON; an unreadable history as its raw text)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, cast

import pydantic_core
from pydantic import ValidationError
from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import (
    BaseToolCallPart,
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)

from mixseek.redaction import Redactor
from mixseek.text_safety import strip_controls

PartKind = Literal[
    "instructions", "system", "user", "tool-call", "tool-return", "retry", "text", "thinking", "other"
]


@dataclass(frozen=True)
class TranscriptPart:
    kind: PartKind
    label: str
    body: str


@dataclass(frozen=True)
class TranscriptMessage:
    """One request to a model or one response from it."""

    role: Literal["request", "response"]
    parts: list[TranscriptPart]
    model_name: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    timestamp: datetime | None = None


@dataclass(frozen=True)
class Transcript:
    messages: list[TranscriptMessage] = field(default_factory=list)
    error: str | None = None
    """Why the stored history could not be read (then `raw` holds its text)."""
    raw: str | None = None


def _json(value: Any) -> str:
    """`value` as indented JSON, whatever it is (unknown types as their string)."""
    return pydantic_core.to_json(value, indent=2, fallback=str, bytes_mode="base64").decode()


def _user_content(content: str | Sequence[Any]) -> str:
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for item in content:
        if isinstance(item, str):
            pieces.append(item)
        elif isinstance(getattr(item, "content", None), str):
            pieces.append(item.content)
        else:
            where = getattr(item, "url", None) or getattr(item, "media_type", None) or ""
            pieces.append(f"[{getattr(item, 'kind', type(item).__name__)}{': ' if where else ''}{where}]")
    return "\n".join(pieces)


def _call_args(part: BaseToolCallPart) -> str:
    args = part.args_as_dict()
    return json.dumps(args, indent=2, ensure_ascii=False) if args else "{}"


def _part(part: Any) -> TranscriptPart:
    if isinstance(part, SystemPromptPart):
        return TranscriptPart("system", "System prompt", part.content)
    if isinstance(part, UserPromptPart):
        return TranscriptPart("user", "User prompt", _user_content(part.content))
    if isinstance(part, RetryFeedbackPart):
        return TranscriptPart("retry", f"Retry ({part.retry.cause})", part.model_response())
    if isinstance(part, BaseToolCallPart):
        return TranscriptPart("tool-call", f"Tool call: {part.tool_name}", _call_args(part))
    if isinstance(part, BaseToolReturnPart):
        outcome = getattr(part, "outcome", "success")
        if outcome == "retried":
            return TranscriptPart(
                "retry", f"Retry of tool call: {part.tool_name}", part.model_response_str(wrap_if_error=False)
            )
        label = f"Tool return: {part.tool_name}" + ("" if outcome == "success" else f" ({outcome})")
        return TranscriptPart("tool-return", label, part.model_response_str(wrap_if_error=False))
    if isinstance(part, TextPart):
        return TranscriptPart("text", "Text", part.content)
    if isinstance(part, ThinkingPart):
        return TranscriptPart("thinking", "Thinking", part.content)
    return TranscriptPart("other", str(getattr(part, "part_kind", type(part).__name__)), _json(part))


def _clean(part: TranscriptPart) -> TranscriptPart:
    return TranscriptPart(part.kind, strip_controls(part.label), strip_controls(part.body))


def _messages(messages: Sequence[ModelMessage]) -> list[TranscriptMessage]:
    shown: list[TranscriptMessage] = []
    instructions: str | None = None
    for message in messages:
        parts: list[TranscriptPart] = []
        if isinstance(message, ModelRequest):
            if message.instructions and message.instructions != instructions:
                parts.append(TranscriptPart("instructions", "Instructions", message.instructions))
            instructions = message.instructions or instructions
            parts += [_part(p) for p in message.parts]
            shown.append(
                TranscriptMessage("request", [_clean(p) for p in parts], timestamp=message.timestamp)
            )
        elif isinstance(message, ModelResponse):
            shown.append(
                TranscriptMessage(
                    "response",
                    [_clean(_part(p)) for p in message.parts],
                    model_name=strip_controls(message.model_name) if message.model_name else None,
                    input_tokens=message.usage.input_tokens,
                    output_tokens=message.usage.output_tokens,
                    timestamp=message.timestamp,
                )
            )
    return shown


def read_transcript(message_history: str | None) -> Transcript:
    """A stored message history as a transcript, redacted after decoding (an escaped credential is found)."""
    if not message_history:
        return Transcript()
    try:
        messages = ModelMessagesTypeAdapter.validate_json(message_history)
    except ValidationError as exc:
        reason = f"{exc.error_count()} validation error(s), first: {exc.errors()[0]['msg']}"
        transcript = Transcript(error=strip_controls(reason), raw=strip_controls(message_history))
    else:
        transcript = Transcript(messages=_messages(messages))
    return cast(Transcript, Redactor().value(transcript))
