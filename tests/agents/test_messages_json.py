"""A team round's messages are stored as the JSON pydantic-ai's `ModelMessagesTypeAdapter` writes and
loads back, without building that adapter (its schema of every message type costs 0.1 s of CPU, a
fifth of a one-team execution's)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path

from pydantic_ai import ModelMessagesTypeAdapter, RunUsage
from pydantic_ai.messages import (
    BinaryContent,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from mixseek.agents.leader.models import MemberSubmissionsRecord
from mixseek.agents.team_result import TeamRunResult

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def every_kind_of_message() -> list[ModelMessage]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RetryPromptPart is deprecated; old histories still hold it
        retry = RetryPromptPart("wrong arguments", tool_name="search", tool_call_id="c2", timestamp=AT)
    return [
        ModelRequest(
            parts=[
                SystemPromptPart("あなたはリーダーです", timestamp=AT),
                UserPromptPart("課題", timestamp=AT),
                UserPromptPart(
                    [
                        "図を見て",
                        BinaryContent(b"\x89PNG\x00\xff", media_type="image/png"),
                        ImageUrl("https://x/y.png"),
                    ],
                    timestamp=AT,
                ),
            ],
            instructions="短く答える",
        ),
        ModelResponse(
            parts=[
                ThinkingPart("考える", signature="sig"),
                TextPart("途中経過"),
                ToolCallPart("delegate_to_analyst", {"task": "分析", "n": [1, 2.5, None]}, tool_call_id="c1"),
                ToolCallPart("search", '{"q": "raw json args"}', tool_call_id="c2"),
                NativeToolCallPart("web_search", {"query": "q"}, tool_call_id="b1", provider_name="p"),
                NativeToolReturnPart("web_search", {"hits": ["a"]}, tool_call_id="b1", provider_name="p"),
                FilePart(BinaryContent(b"\x00\x01", media_type="application/octet-stream")),
            ],
            usage=RequestUsage(input_tokens=12, output_tokens=3),
            model_name="leader-model",
            timestamp=AT,
            provider_details={"finish_reason": "tool_calls", "nested": {"k": [1, "二"]}},
        ),
        ModelRequest(
            parts=[
                ToolReturnPart(
                    "delegate_to_analyst", {"answer": "分析結果", "at": AT}, tool_call_id="c1", timestamp=AT
                ),
                retry,
            ]
        ),
        ModelResponse(parts=[TextPart("最終回答")], model_name="leader-model", timestamp=AT),
    ]


def result_of(messages: list[ModelMessage]) -> TeamRunResult:
    record = MemberSubmissionsRecord(team_id="t", team_name="T", round_number=1, submissions=[])
    return TeamRunResult("最終回答", record, messages, RunUsage(), RunUsage())


def test_messages_json_is_what_pydantic_ai_writes_and_loads_back() -> None:
    messages = every_kind_of_message()
    written = result_of(messages).messages_json()
    assert written.encode() == ModelMessagesTypeAdapter.dump_json(messages)
    loaded = ModelMessagesTypeAdapter.validate_json(written)  # the old retry part comes back as its successor
    assert [type(m) for m in loaded] == [type(m) for m in messages]
    assert loaded[1] == messages[1]


def test_writing_messages_does_not_build_pydantic_ais_message_adapter() -> None:
    """In a fresh process: a round's messages written as a round controller stores them, and
    pydantic-ai's adapter for them still unbuilt afterwards."""
    code = """
from pydantic_ai import ModelMessagesTypeAdapter
from test_messages_json import every_kind_of_message, result_of
written = result_of(every_kind_of_message()).messages_json()
assert '"最終回答"' in written
print(ModelMessagesTypeAdapter.pydantic_complete)
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).parent,
    )
    assert out.stdout.strip() == "False"
