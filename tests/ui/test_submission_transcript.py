"""`mixseek.report.transcript.read_transcript`: a stored message history, as the submission page
lists it, part by part."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import (
    BinaryContent,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from mixseek.report.transcript import TranscriptPart, read_transcript

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def stored(messages: list[ModelMessage]) -> str:
    return ModelMessagesTypeAdapter.dump_json(messages).decode()


def test_every_kind_of_part_has_a_label_and_a_body() -> None:
    history = stored(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart("be brief"),
                    UserPromptPart(["look at", ImageUrl("https://example.org/a.png")]),
                ],
                instructions="lead the team",
            ),
            ModelResponse(
                parts=[ThinkingPart("hmm"), ToolCallPart("delegate_to_x", {"task": "é <b>"})],
                usage=RequestUsage(input_tokens=12, output_tokens=3),
                model_name="leader\x1b[2J",
                timestamp=WHEN,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart("delegate_to_x", {"answer": 42}),
                    ToolReturnPart("delegate_to_y", "wrong\u202e", outcome="retried"),
                    ToolReturnPart("delegate_to_z", "boom", outcome="failed"),
                    RetryFeedbackPart("no output", retry=RetryInfo(cause="model_retry")),
                ],
                instructions="lead the team",
            ),
            ModelResponse(
                parts=[FilePart(BinaryContent(b"\x89PNG", media_type="image/png")), TextPart("done")]
            ),
        ]
    )
    transcript = read_transcript(history)
    assert transcript.error is None
    first, second, third, fourth = transcript.messages
    assert first.role == "request"
    assert first.parts == [
        TranscriptPart("instructions", "Instructions", "lead the team"),
        TranscriptPart("system", "System prompt", "be brief"),
        TranscriptPart("user", "User prompt", "look at\n[image-url: https://example.org/a.png]"),
    ]
    assert (second.role, second.model_name, second.input_tokens, second.output_tokens) == (
        "response",
        "leader",
        12,
        3,
    )
    assert second.timestamp == WHEN
    assert second.parts == [
        TranscriptPart("thinking", "Thinking", "hmm"),
        TranscriptPart("tool-call", "Tool call: delegate_to_x", '{\n  "task": "é <b>"\n}'),
    ]
    # the same instructions again are not repeated
    assert [(p.kind, p.label) for p in third.parts] == [
        ("tool-return", "Tool return: delegate_to_x"),
        ("retry", "Retry of tool call: delegate_to_y"),
        ("tool-return", "Tool return: delegate_to_z (failed)"),
        ("retry", "Retry (model_retry)"),
    ]
    assert third.parts[0].body == '{"answer":42}'
    assert third.parts[1].body == "wrong"  # the bidi override is gone
    assert fourth.parts[0].kind == "other" and fourth.parts[0].label == "file"
    assert '"media_type": "image/png"' in fourth.parts[0].body
    assert fourth.parts[1] == TranscriptPart("text", "Text", "done")


def test_nothing_stored_is_an_empty_transcript() -> None:
    assert read_transcript(None).messages == []
    assert read_transcript("").error is None


def test_a_history_that_cannot_be_read_keeps_its_text() -> None:
    transcript = read_transcript('[{"kind": "bogus"}]\x1b[2J')
    assert transcript.messages == []
    assert transcript.error is not None and transcript.error.startswith("1 validation error(s), first: ")
    assert transcript.raw == '[{"kind": "bogus"}]'
